/**
 * STAC Items (issue 4): fetch through the Source layer's policy with a size cap and a short cache,
 * validate, pick an asset and resolve its href. pickAsset, resolveHref and the media-type tests are pure.
 */
import { ZonalError } from '../errors.ts';
import { memo } from '../memo.ts';
import type { ByteSource } from '../source/source.ts';

export interface StacAsset {
  href?: unknown;
  type?: unknown;
  roles?: unknown;
  'raster:bands'?: unknown;
  [k: string]: unknown;
}

export interface StacItem {
  type: 'Feature';
  assets: Record<string, StacAsset>;
  [k: string]: unknown;
}

/** Largest Item read (a STAC Item is metadata; anything bigger is not one). */
const MAX_ITEM_BYTES = 10 * 1024 * 1024;
/** First read of an Item: most Items fit, so one request reads them and learns their size. */
const FIRST_READ_BYTES = 256 * 1024;
/** Fetched Items, reused for the same URL for 30 s without asking again (asking would cost the round trip saved). */
const cache = memo<FetchedItem>({ name: 'stac_items', maxEntries: 256, ttlMs: 30_000 });

/** An Item and the URL it was read from after redirects, the base of its relative hrefs (RFC 3986 §5.1.3). */
export interface FetchedItem {
  item: StacItem;
  base: URL;
}

/** contract §2: the Item URL is http or https only. */
export function checkItemUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ZonalError('validation_failed', 'The url is not a valid URL.', { errors: [{ path: '/url', message: 'is not a valid URL' }] });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ZonalError('unsupported_protocol', `A STAC Item URL must be http or https, not ${u.protocol.replace(/:$/, '')}.`);
  }
  return u;
}

/** Parses and checks an Item: JSON, `type: "Feature"`, an `assets` object. */
export function parseItem(bytes: ArrayBuffer): StacItem {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ZonalError('invalid_source', 'The STAC Item is not valid JSON.');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ZonalError('invalid_source', 'The STAC Item is not a JSON object.');
  const o = v as Record<string, unknown>;
  if (o['type'] !== 'Feature') {
    const what = typeof o['type'] === 'string' ? `a ${o['type']}` : 'not a GeoJSON Feature';
    throw new ZonalError('invalid_source', `The URL does not point to a STAC Item: it is ${what}, not a Feature.`);
  }
  const assets = o['assets'];
  if (!assets || typeof assets !== 'object' || Array.isArray(assets)) {
    throw new ZonalError('invalid_source', 'The STAC Item has no assets object.');
  }
  return o as StacItem;
}

/** Fetches an Item in one request (cached for 30 s per URL; a failed or invalid Item is not). */
export function fetchItem(url: URL, open: (url: string) => Promise<ByteSource>, signal?: AbortSignal): Promise<FetchedItem> {
  return cache.remember(url.href, () => readItem(url, open, signal));
}

async function readItem(url: URL, open: (url: string) => Promise<ByteSource>, signal?: AbortSignal): Promise<FetchedItem> {
  const source = await open(url.href);
  // One request for a typical Item; a bigger one is measured by that answer and refused or completed.
  const head = await source.head(FIRST_READ_BYTES, signal);
  const size = await source.size(signal);
  if (size > MAX_ITEM_BYTES) {
    throw new ZonalError('source_too_large', `The STAC Item is ${size} bytes, more than the ${MAX_ITEM_BYTES} a STAC Item may have here.`);
  }
  let bytes = head;
  if (head.byteLength < size) {
    const whole = new Uint8Array(size);
    whole.set(new Uint8Array(head));
    whole.set(new Uint8Array(await source.read(head.byteLength, size - head.byteLength, signal)), head.byteLength);
    bytes = whole.buffer;
  }
  return { item: parseItem(bytes), base: source.location() };
}

/** Empties the Item cache (tests). */
export function clearItemCache(): void {
  cache.clear();
}

/** `asset` by key, else the first asset in the Item's JSON order (STAC's rule); 422 listing the keys. */
export function pickAsset(item: StacItem, key: string | undefined): [string, StacAsset] {
  const keys = Object.keys(item.assets);
  if (keys.length === 0) throw new ZonalError('invalid_source', 'The STAC Item has no assets.');
  const name = key ?? (keys[0] as string);
  const asset = Object.hasOwn(item.assets, name) ? item.assets[name] : undefined;
  if (!asset || typeof asset !== 'object') {
    throw new ZonalError('unknown_asset', `The STAC Item has no asset "${name}"; its assets are: ${keys.join(', ')}.`, { assets: keys });
  }
  if (typeof asset.href !== 'string' || asset.href.trim() === '') {
    throw new ZonalError('invalid_source', `The asset "${name}" of the STAC Item has no href.`);
  }
  return [name, asset];
}

/** An asset href resolved against the Item's URL (relative paths, query strings kept). */
export function resolveHref(itemUrl: URL, href: string): string {
  try {
    return new URL(href, itemUrl).href;
  } catch {
    throw new ZonalError('invalid_source', 'The asset href is not a valid URL or path.');
  }
}

function mediaType(asset: StacAsset): string | null {
  return typeof asset.type === 'string' ? asset.type.toLowerCase() : null;
}

/** Whether an asset's media type says GeoTIFF (absent: unknown, so it is tried). */
export function isGeoTiffAsset(asset: StacAsset): boolean {
  const t = mediaType(asset);
  if (t === null) return true;
  return /^image\/(tiff|geotiff)\b/.test(t) || t.includes('geotiff');
}

const PARQUET_TYPES = ['application/vnd.apache.parquet', 'application/x-parquet', 'application/geoparquet', 'application/parquet'];

/** Whether an asset's media type says Parquet (parameters allowed). */
export function isParquetAsset(asset: StacAsset): boolean {
  const t = mediaType(asset);
  if (t === null) return false;
  const base = t.split(';')[0]?.trim() ?? '';
  return PARQUET_TYPES.includes(base);
}

/** Per-band overrides from the STAC raster extension (`raster:bands`), index 0 = band 1. */
export interface BandOverride {
  nodata?: number;
  scale?: number;
  offset?: number;
  /** Class names by value (STAC classification extension, `classification:classes`). */
  classes?: Map<number, string>;
}

/** `classification:classes` [{value, name, description?}] → value → name (entries without both skipped). */
function classNames(raw: unknown): Map<number, string> | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out = new Map<number, string>();
  for (const c of raw) {
    if (
      c &&
      typeof c === 'object' &&
      typeof (c as Record<string, unknown>)['value'] === 'number' &&
      typeof (c as Record<string, unknown>)['name'] === 'string'
    ) {
      out.set((c as Record<string, unknown>)['value'] as number, (c as Record<string, unknown>)['name'] as string);
    }
  }
  return out.size > 0 ? out : undefined;
}

/**
 * Per band (index 0 = band 1): raster:bands nodata, scale and offset, and classification:classes (a
 * band's own, else the asset's, which then names the classes of every band).
 */
export function rasterBandsOf(asset: StacAsset): BandOverride[] {
  const bands = asset['raster:bands'];
  const assetClasses = classNames(asset['classification:classes']);
  if (!Array.isArray(bands)) return assetClasses ? [{ classes: assetClasses }] : [];
  return bands.map((b: unknown) => {
    const o: BandOverride = {};
    const own = b && typeof b === 'object' ? classNames((b as Record<string, unknown>)['classification:classes']) : undefined;
    if (own ?? assetClasses) o.classes = (own ?? assetClasses) as Map<number, string>;
    if (b && typeof b === 'object') {
      const r = b as Record<string, unknown>;
      const nodata = r['nodata'];
      if (typeof nodata === 'number') o.nodata = nodata;
      else if (nodata === 'nan') o.nodata = Number.NaN;
      else if (nodata === 'inf') o.nodata = Number.POSITIVE_INFINITY;
      else if (nodata === '-inf') o.nodata = Number.NEGATIVE_INFINITY;
      if (typeof r['scale'] === 'number') o.scale = r['scale'];
      if (typeof r['offset'] === 'number') o.offset = r['offset'];
    }
    return o;
  });
}
