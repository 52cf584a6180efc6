/**
 * A piece of a zone's packed rows as NDJSON lines (formats/ndjson.ts), from plain data that a worker thread
 * can be sent: a cube's 228 MB of rows are written by the workers while the main thread sends them. Here,
 * below the formats, because the workers run it; it knows nothing of zones or formats. Pure.
 */

/** Rows of one zone, their text parts made once: every line is `prefix coords[i] open (heads[k] value)… }}}`. */
export interface RowsPiece {
  /** The zone's line up to its coordinates: `{"index":…,"id":…,"properties":…`. */
  prefix: string;
  /** Each row's coordinates as members: `,"time":"…"`. */
  coords: string[];
  /** `,"statistics":{"<key>":{`. */
  open: string;
  /** Each statistic's `"<name>":`, with the comma before it but the first. */
  heads: string[];
  /** The statistics' names (a value of `extra` by name takes the number's place). */
  names: string[];
  /** Row by row, name by name: the numbers (NaN for null). */
  values: Float64Array;
  /** Per row, the values that are not numbers, by name; null when none. */
  extra: (Record<string, unknown> | null)[] | null;
}

/** A number as JSON.stringify writes it (null for NaN and the infinities). */
const numberText = (v: number): string => (Number.isFinite(v) ? String(v) : 'null');

/** The piece's lines: the bytes JSON.stringify writes for each row's object. */
export function rowsPieceText(p: RowsPiece): string {
  const { prefix, coords, open, heads, names, values, extra } = p;
  const n = names.length;
  // Each column's last number and its text: counts and areas repeat from step to step.
  const last = new Float64Array(n).fill(Number.NaN);
  const lastText: string[] = names.map(() => 'null');
  let text = '';
  for (let i = 0; i < coords.length; i++) {
    let line = `${prefix}${coords[i] as string}${open}`;
    const more = extra?.[i] ?? null;
    for (let k = 0; k < n; k++) {
      const name = names[k] as string;
      let value: string;
      if (more !== null && name in more) value = JSON.stringify(more[name]);
      else {
        const v = values[i * n + k] as number;
        // Equal numbers have one text (0 and -0 both "0"; NaN is never equal, and writes null).
        if (v !== last[k]) {
          last[k] = v;
          lastText[k] = numberText(v);
        }
        value = lastText[k] as string;
      }
      line += `${heads[k] as string}${value}`;
    }
    text += `${line}}}}\n`;
  }
  return text;
}
