/**
 * Pure parsing of GDAL's TIFF tags. geotiff.js's getGDALMetadata() drops items that carry a `role`
 * attribute, which is exactly how GDAL writes SCALE and OFFSET (issue 2 "known traps"), so we read the
 * GDAL_METADATA XML ourselves.
 */

export interface BandScaling {
  scale: number;
  offset: number;
}

const ITEM = /<Item\s+([^>]*)>([^<]*)<\/Item>/g;
const ATTR = /(\w+)\s*=\s*"([^"]*)"/g;

function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(ATTR)) out[m[1] as string] = m[2] as string;
  return out;
}

/** Per-band scale and offset (bands 0-based) from a GDAL_METADATA string; identity where absent. */
export function parseBandScaling(xml: string | null, bandCount: number): BandScaling[] {
  const out = Array.from({ length: bandCount }, () => ({ scale: 1, offset: 0 }));
  if (!xml) return out;
  for (const m of xml.matchAll(ITEM)) {
    const attrs = attributes(m[1] as string);
    const role = (attrs['role'] ?? attrs['name'] ?? '').toLowerCase();
    if (role !== 'scale' && role !== 'offset') continue;
    const sample = attrs['sample'] === undefined ? -1 : Number(attrs['sample']);
    const value = Number((m[2] as string).trim());
    if (!Number.isFinite(value)) continue;
    const targets = sample >= 0 ? [sample] : out.map((_, i) => i);
    for (const t of targets) {
      const band = out[t];
      if (band) band[role] = value;
    }
  }
  return out;
}

/** The GDAL_NODATA tag value ("-32768", "nan", "1e+20"), or null when absent or unparsable. */
/**
 * GDAL_NODATA of a 64-bit integer band, exactly: 2⁶⁴ − 2 and 2⁶⁴ − 1 are one float64, so these bands compare
 * their samples with a BigInt. Null when the tag is absent, not an integer, or outside the type's range.
 */
export function parseNodata64(tag: string | null, dtype: string): bigint | null {
  if (tag === null || (dtype !== 'uint64' && dtype !== 'int64')) return null;
  const text = tag.replace(/\0/g, '').trim();
  let v: bigint;
  if (/^[+-]?\d+$/.test(text)) v = BigInt(text);
  else {
    // GDAL reads "1e3" or "7.0" as a double: an integral one within 2⁵³ is exact as a BigInt.
    const n = Number(text);
    if (!Number.isSafeInteger(n)) return null;
    v = BigInt(n);
  }
  const [lo, hi] = dtype === 'uint64' ? [0n, 2n ** 64n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n];
  return v < lo || v > hi ? null : v;
}

export function parseNodata(tag: string | null): number | null {
  if (tag === null) return null;
  const text = tag.replace(/\0/g, '').trim().toLowerCase();
  if (text === '') return null;
  if (text === 'nan') return Number.NaN;
  if (text === 'inf' || text === '+inf') return Number.POSITIVE_INFINITY;
  if (text === '-inf') return Number.NEGATIVE_INFINITY;
  const v = Number(text);
  return Number.isNaN(v) ? null : v;
}
