/**
 * How a request spells a statistic, read against the declarations of catalogue.ts: plain names (`mean`),
 * template instances (`percentile_90`) and exactextract's calls (`quantile(q=0.75)`), each resolved to its
 * declaration, its arguments and its answer key; and how documents and messages spell them back. Pure and
 * import-free but for the catalogue: the web page bundles it.
 */
import { STATISTICS, type Args, type Needs, type ParamSpec, type SourceKind, type StatDeclaration } from './catalogue.ts';
import { WEIGHTING_ARG_NAMES, weightingArg, type WeightingArgs } from './weighting.ts';

/** A requested statistic: the answer's key (as the request spells it), its declaration and its arguments. */
export interface ResolvedStat {
  readonly key: string;
  readonly declaration: StatDeclaration;
  readonly args: Args;
  /** exactextract's weighting arguments given with it (`mean(coverage_weight=none)`); the request's apply to the rest. */
  readonly weighting?: WeightingArgs;
}

/** `name(arg=value, …)`: exactextract's spelling of an operation with arguments. */
const CALL = /^(\w+)\s*\(([^()]*)\)$/;

/** The holes of a template, in order (none for a plain name); the arguments of a `call`. */
export function holesOf(declaration: StatDeclaration): string[] {
  if (declaration.call) return Object.keys(declaration.params ?? {});
  return [...declaration.name.matchAll(/<(\w+)>/g)].map((m) => m[1] as string);
}

const PLAIN = new Map<string, ResolvedStat>();
const TEMPLATES: { declaration: StatDeclaration; re: RegExp; holes: string[] }[] = [];
/** The statistics spelt only with their arguments (`quantile(q=…)`). */
const CALLS = new Map<string, StatDeclaration>();
for (const declaration of STATISTICS as readonly StatDeclaration[]) {
  if (declaration.call) {
    CALLS.set(declaration.name, declaration);
    continue;
  }
  const holes = holesOf(declaration);
  if (holes.length === 0) {
    PLAIN.set(declaration.name, { key: declaration.name, declaration, args: {} });
    continue;
  }
  const source = declaration.name
    .split(/<\w+>/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .reduce((re, literal, i) => `${re}(${paramOf(declaration, holes[i - 1] as string).text})${literal}`);
  TEMPLATES.push({ declaration, re: new RegExp(`^${source}$`), holes });
}

function paramOf(declaration: StatDeclaration, hole: string): ParamSpec {
  const spec = declaration.params?.[hole];
  if (spec === undefined) throw new Error(`statistic ${declaration.name}: no parameter declared for <${hole}>`);
  return spec;
}

/** Template instances already resolved: every accumulator (one per zone and block) resolves its names. */
const RESOLVED = new Map<string, ResolvedStat>();
const RESOLVED_MAX = 1024;

/** The statistic a requested name asks for, or null when no declaration spells it (a value out of range included). */
export function resolveStat(name: string): ResolvedStat | null {
  const known = PLAIN.get(name) ?? RESOLVED.get(name);
  if (known !== undefined) return known;
  const stat = CALL.test(name) ? callOf(name) : templateOf(name);
  if (typeof stat === 'string' || stat === null) return null;
  if (RESOLVED.size >= RESOLVED_MAX) RESOLVED.clear();
  RESOLVED.set(name, stat);
  return stat;
}

/** Why `name` is not a statistic, in the user's words; null when it is one. */
export function whyNotStat(name: string): string | null {
  if (resolveStat(name) !== null) return null;
  // A statistic spelt only with its arguments, asked without them: say which.
  const why = CALL.test(name) ? callOf(name) : CALLS.has(name) ? callOf(`${name}()`) : null;
  return typeof why === 'string' ? why : `unknown statistic '${name}'`;
}

/** A value as a parameter spells it, checked against its range; null when it is not one. */
function paramValue(spec: ParamSpec, text: string): number | null {
  if (!new RegExp(`^(?:${spec.text})$`).test(text)) return null;
  const value = Number(text);
  return value >= spec.min && value <= spec.max ? value : null;
}

/** `name(arg=value, …)` resolved, or why it is not a statistic. */
function callOf(name: string): ResolvedStat | string {
  const [, base = '', inner = ''] = CALL.exec(name) ?? [];
  const declaration = CALLS.get(base);
  const plain = declaration === undefined ? (PLAIN.get(base) ?? templateOf(base)) : null;
  if (declaration === undefined && plain === null) return `unknown statistic '${base}' in '${name}'`;
  const d = declaration ?? (plain as ResolvedStat).declaration;
  const own = declaration ? Object.keys(d.params ?? {}) : [];
  // Any raster statistic takes exactextract's weighting arguments.
  const weighs: readonly string[] = d.appliesTo.includes('raster') ? WEIGHTING_ARG_NAMES : [];
  const allowed = [...own, ...weighs].join(', ') || 'none';
  const args: Record<string, number | string> = declaration ? {} : { ...(plain as ResolvedStat).args };
  const weighting: Record<string, number | string> = {};
  const given = inner.trim() === '' ? [] : inner.split(',');
  for (const piece of given) {
    const m = /^\s*(\w+)\s*=\s*(\S+)\s*$/.exec(piece);
    if (!m) return `'${name}': an argument is written name=value (${base}'s arguments: ${allowed})`;
    const [, key = '', text = ''] = m;
    if ((key in args && own.includes(key)) || key in weighting) return `'${name}' gives ${key} twice`;
    if (weighs.includes(key)) {
      const value = weightingArg(key as (typeof WEIGHTING_ARG_NAMES)[number], text);
      if (typeof value === 'object') return `'${name}': ${value.why}`;
      weighting[key] = value;
      continue;
    }
    if (!own.includes(key)) return `'${name}': ${base} has no argument '${key}' (its arguments: ${allowed})`;
    const spec = paramOf(d, key);
    const value = paramValue(spec, text);
    if (value === null) return `'${name}': ${key} must be a number from ${spec.min} to ${spec.max}`;
    args[key] = value;
  }
  const missing = own.filter((k) => !(k in args));
  if (missing.length > 0) return `'${base}' needs ${missing.join(' and ')}: ${base}(${missing.map((k) => `${k}=…`).join(', ')}) (${rangesOf(d)})`;
  const key = d.call ? d.call.key(args) : (plain as ResolvedStat).key;
  return Object.keys(weighting).length > 0 ? { key, declaration: d, args, weighting } : { key, declaration: d, args };
}

/** A template instance (`percentile_90`), or null. */
function templateOf(name: string): ResolvedStat | null {
  for (const { declaration, re, holes } of TEMPLATES) {
    const m = re.exec(name);
    if (m === null) continue;
    const args: Record<string, number> = {};
    for (let i = 0; i < holes.length; i++) {
      const hole = holes[i] as string;
      const spec = paramOf(declaration, hole);
      const value = Number(m[i + 1]);
      if (!(value >= spec.min && value <= spec.max)) return null;
      args[hole] = value;
    }
    return { key: name, declaration, args };
  }
  return null;
}

/** What the accumulator tracks for one resolved statistic. */
export function needsOfStat(stat: ResolvedStat): Needs {
  const { needs } = stat.declaration;
  return typeof needs === 'function' ? needs(stat.args) : needs;
}

/** The name that spells these arguments (its holes filled as written): `spell(PERCENTILE, { q: 90 })` → `percentile_90`. */
export function spell(declaration: StatDeclaration, args: Readonly<Record<string, number | string>>): string {
  if (declaration.call)
    return `${declaration.name}(${Object.keys(declaration.params ?? {})
      .map((k) => `${k}=${args[k] ?? '…'}`)
      .join(', ')})`;
  return declaration.name.replace(/<(\w+)>/g, (hole, key: string) => (args[key] === undefined ? hole : String(args[key])));
}

/** Each hole's range, as documents say it (`q from 0 to 100`); '' for a plain name. */
export function rangesOf(declaration: StatDeclaration): string {
  return holesOf(declaration)
    .map((h) => `${h} from ${paramOf(declaration, h).min} to ${paramOf(declaration, h).max}`)
    .join(', ');
}

/** How error messages list a statistic: the name, and a template's ranges (`percentile_<q> (q from 0 to 100)`). */
export function listedName(declaration: StatDeclaration): string {
  const ranges = rangesOf(declaration);
  const name = declaration.call ? spell(declaration, {}) : declaration.name;
  return ranges === '' ? name : `${name} (${ranges})`;
}

/** The declarations that apply to `kind`, in declaration order. */
export function statisticsFor(kind: SourceKind): StatDeclaration[] {
  return (STATISTICS as readonly StatDeclaration[]).filter((d) => d.appliesTo.includes(kind));
}
