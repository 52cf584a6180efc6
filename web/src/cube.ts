/**
 * A data cube's info as the form offers it (no DOM): the variable picked first, a variable's dimensions with
 * their extents, which of them are spatial (never offered a range), and the user's ranges as the request's `sel`.
 */
import type { CubeInfo, CubeSel } from './api.ts';

export interface CubeDimension {
  name: string;
  /** from the variable's shape */
  size: number;
  /** from sources/info's extents (those of the store's first gridded variable); null where it has none */
  first: string | number | null;
  last: string | number | null;
  /** an axis of the grid: its cells are the zones' pixels, not steps */
  spatial: boolean;
}

/** A non-spatial dimension's steps: all of them, or the inclusive range typed (either end may be empty; kept while `all`). */
export interface StepPick {
  all: boolean;
  start: string;
  end: string;
}

/** The names the service finds spatial axes by when no attribute says (sources/info does not mark them). */
const SPATIAL_NAME = /^(x|y|lon|lat|longitude|latitude|rlon|rlat|xc|yc|projection_[xy]_coordinate)$/i;

/** The variable drawn on first: the first whose dimensions are the ones sources/info describes, else the first. */
export function defaultVariable(info: CubeInfo): string | null {
  const names = info.dimensions.map((d) => d.name).join('\u0000');
  return (info.variables.find((v) => v.dimensions.join('\u0000') === names) ?? info.variables[0])?.name ?? null;
}

/**
 * The variable's dimensions in its order. Spatial: the two named as the usual x and y axes, else the last two
 * (the order CF recommends: T, Z, Y, X).
 */
export function variableDimensions(info: CubeInfo, variable: string): CubeDimension[] {
  const v = info.variables.find((x) => x.name === variable);
  if (!v) return [];
  const named = v.dimensions.filter((d) => SPATIAL_NAME.test(d));
  const spatial = new Set(named.length === 2 ? named : v.dimensions.slice(-2));
  return v.dimensions.map((name, i) => {
    const extent = info.dimensions.find((d) => d.name === name);
    return { name, size: v.shape[i] ?? extent?.size ?? 0, first: extent?.first ?? null, last: extent?.last ?? null, spatial: spatial.has(name) };
  });
}

/** "time 2020-01-01T00:00:00Z … 2020-01-02T23:00:00Z (48)"; without an extent, "level (4)". */
export function extentText(d: CubeDimension): string {
  return d.first === null || d.last === null ? `${d.name} (${d.size})` : `${d.name} ${d.first} … ${d.last} (${d.size})`;
}

/** A typed end: a number on a numeric axis (the service compares numbers there), else the text as typed. */
function endValue(d: CubeDimension, text: string): string | number {
  const n = Number(text);
  return typeof d.first === 'number' && text.trim() !== '' && Number.isFinite(n) ? n : text.trim();
}

/** The request's `sel`: a range per dimension the user restricted; undefined when every one is taken whole. */
export function selOf(dims: readonly CubeDimension[], picks: Readonly<Record<string, StepPick>>): CubeSel | undefined {
  const sel: CubeSel = {};
  for (const d of dims) {
    const pick = picks[d.name];
    if (d.spatial || !pick || pick.all) continue;
    const range: CubeSel[string] = {};
    if (pick.start.trim() !== '') range.start = endValue(d, pick.start);
    if (pick.end.trim() !== '') range.end = endValue(d, pick.end);
    if (range.start !== undefined || range.end !== undefined) sel[d.name] = range;
  }
  return Object.keys(sel).length > 0 ? sel : undefined;
}
