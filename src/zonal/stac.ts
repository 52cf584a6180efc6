/**
 * A STAC Item's asset as the question it stands for (issue 4): the Item read once, the asset resolved
 * against the Item's URL, then answered exactly as the raster or vector question for that URL would be.
 */
import { ZonalError } from '../errors.ts';
import { checkItemUrl, fetchItem, isGeoTiffAsset, isParquetAsset, pickAsset, rasterBandsOf, resolveHref, type BandOverride } from '../stac/item.ts';
import { checkParquetUrl } from './vector.ts';
import type { ByteSource } from '../source/source.ts';
import type { RasterQuery, VectorQuery } from './model.ts';

interface ItemDeps {
  openSource(url: string): Promise<ByteSource>;
  signal?: AbortSignal;
}

/** The raster question for a GeoTIFF asset of the Item at `q.url`, and the asset's raster:bands defaults. */
export async function rasterAsset(q: RasterQuery & { asset?: string }, deps: ItemDeps): Promise<{ query: RasterQuery; bandDefaults: readonly BandOverride[] }> {
  const { item, base } = await fetchItem(checkItemUrl(q.url), deps.openSource, deps.signal);
  const [name, asset] = pickAsset(item, q.asset);
  if (!isGeoTiffAsset(asset)) {
    const tiffs = Object.entries(item.assets)
      .filter(([, a]) => a && typeof a === 'object' && typeof a.type === 'string' && isGeoTiffAsset(a))
      .map(([k]) => k);
    throw new ZonalError(
      'unsupported_asset',
      `The asset "${name}" is ${String(asset.type)}, not a GeoTIFF; the Item's GeoTIFF assets are: ${tiffs.length > 0 ? tiffs.join(', ') : 'none'}.`,
      { geotiff_assets: tiffs },
    );
  }
  const { asset: _asset, ...rest } = q;
  const weights = q.weights?.asset === undefined ? {} : { weights: { url: tiffHref(item, base, q.weights.asset), band: q.weights.band ?? 1 } };
  const zones = q.zones?.asset === undefined ? {} : { zones: { url: tiffHref(item, base, q.zones.asset, 'zones'), band: q.zones.band ?? 1 } };
  return { query: { ...rest, ...weights, ...zones, url: resolveHref(base, asset.href as string) }, bandDefaults: rasterBandsOf(asset) };
}

/** The URL of a GeoTIFF asset of an Item (the weights' or the zones' asset), or the 422 that says why not. */
export function tiffHref(item: Parameters<typeof pickAsset>[0], base: URL, key: string, role: 'weights' | 'zones' = 'weights'): string {
  const [name, asset] = pickAsset(item, key);
  if (!isGeoTiffAsset(asset)) throw new ZonalError('unsupported_asset', `The ${role} asset "${name}" is ${String(asset.type)}, not a GeoTIFF.`);
  return resolveHref(base, asset.href as string);
}

/** The vector question for a Parquet asset of the Item at `q.url`: a Parquet path or media type (contract §5), else 415. */
export async function vectorAsset(q: VectorQuery & { asset?: string }, deps: ItemDeps): Promise<VectorQuery> {
  const { item, base } = await fetchItem(checkItemUrl(q.url), deps.openSource, deps.signal);
  const [, asset] = pickAsset(item, q.asset);
  const url = resolveHref(base, asset.href as string);
  if (!isParquetAsset(asset)) checkParquetUrl(url);
  const { asset: _asset, ...rest } = q;
  return { ...rest, url };
}
