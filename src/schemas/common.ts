/** Request pieces shared by the endpoints (docs/contract.md §2). */
import { Type } from '@sinclair/typebox';
import { ALWAYS_PRESENT_NAMES, DEFAULT_STATS, STATISTICS, type StatDeclaration } from '../stats/catalogue.ts';
import { rangesOf } from '../stats/spelling.ts';

export const UrlSchema = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'http(s)://, s3:// or file:// URL of the source (file:// only inside the configured data roots).',
});

/**
 * The `stats` description, from the declared statistics: the names (with the source kind of those that apply
 * to one), the default, then a Markdown list (the docs page renders it) of each statistic's own sentence.
 * The names are checked by parseStatNames, not by this schema, so that an unknown one gets the message that
 * lists the valid ones.
 */
function statsDescription(): string {
  const declared: readonly StatDeclaration[] = STATISTICS;
  const only = (d: StatDeclaration): string => (d.appliesTo.length === 1 ? ` (${d.appliesTo[0]})` : '');
  const always = ALWAYS_PRESENT_NAMES.map((n) => `\`${n}\``).join(' and ');
  const item = (d: StatDeclaration): string => {
    const notes = [rangesOf(d), d.appliesTo.length === 1 ? `${d.appliesTo[0]} only` : ''].filter((n) => n !== '');
    return `- \`${d.name}\`${notes.length > 0 ? ` (${notes.join('; ')})` : ''}: ${d.description}`;
  };
  return [
    `Statistics to compute: ${declared.map((d) => d.name + only(d)).join(', ')}. Default ${JSON.stringify(DEFAULT_STATS)}.`,
    '',
    ...declared.map(item),
    '',
    `${always} are always answered; listing them changes nothing.`,
  ].join('\n');
}

export const StatsSchema = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 64,
  description: statsDescription(),
});

/**
 * The /docs examples run as written against the bundled demo data. They name it as the container sees it;
 * the docs plugin rewrites this prefix to the folder this instance was started from. The STAC examples read
 * the bundled Items over http from 127.0.0.1:8001 (the README's one-line server) or a real public Item.
 */
export const DEMO_URL = 'file:///app/fixtures/demo/';
export const DEMO_STAC_URL = 'http://127.0.0.1:8001/stac/';
export const PUBLIC_S2_ITEM = 'https://earth-search.aws.element84.com/v1/collections/sentinel-2-l2a/items/S2B_33TWN_20240715_0_L2A';
