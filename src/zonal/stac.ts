/**
 * The STAC use cases (issue 4): resolve an asset of a STAC Item to a source URL, then answer exactly as
 * the raster or vector endpoint would for that URL.
 */
import { ZonalError } from '../errors.ts';
import type { RasterStacRequest, VectorStacRequest } from '../schemas/stac.ts';
import type { StatsResponse } from '../schemas/response.ts';
import { checkItemUrl, fetchItem, isGeoTiffAsset, isParquetAsset, pickAsset, rasterBandsOf, resolveHref } from '../stac/item.ts';
import { rasterZonalStats, rasterZonesStats, type RasterDeps } from './raster.ts';
import type { GeometryRequest } from '../schemas/aoi.ts';
import { checkParquetUrl, vectorZonalStats, vectorZonesStats, type VectorDeps } from './vector.ts';

export async function rasterStacStats(req: RasterStacRequest, deps: RasterDeps): Promise<StatsResponse> {
  const { request, deps: assetDeps } = await rasterAsset(req, deps);
  return rasterZonalStats(request, assetDeps);
}

/** Many zones over a raster asset of a STAC Item: the Item is read once, then as the raster endpoint. */
export async function* rasterStacZonesStats(
  req: Omit<RasterStacRequest, 'aoi'>,
  geometries: readonly (() => GeometryRequest)[],
  deps: RasterDeps,
): AsyncGenerator<{ statistics: StatsResponse } | { error: unknown }> {
  const { request, deps: assetDeps } = await rasterAsset(req, deps);
  yield* rasterZonesStats(request, geometries, assetDeps);
}

/** The raster request and deps that answer for a STAC Item's asset. */
async function rasterAsset<T extends Omit<RasterStacRequest, 'aoi'>>(req: T, deps: RasterDeps): Promise<{ request: Omit<T, 'asset'>; deps: RasterDeps }> {
  const { item, base } = await fetchItem(checkItemUrl(req.url), deps.openSource, deps.signal);
  const [name, asset] = pickAsset(item, req.asset);
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
  const { asset: _asset, ...rest } = req;
  return { request: { ...rest, url: resolveHref(base, asset.href as string) }, deps: { ...deps, bandDefaults: rasterBandsOf(asset) } };
}

export async function vectorStacStats(req: VectorStacRequest, deps: VectorDeps): Promise<StatsResponse> {
  const { request, deps: assetDeps } = await vectorAsset(req, deps);
  return vectorZonalStats(request, assetDeps);
}

/** Many zones over a Parquet asset of a STAC Item: the Item is read once, then as the vector endpoint. */
export async function* vectorStacZonesStats(
  req: Omit<VectorStacRequest, 'aoi'>,
  geometries: readonly (() => GeometryRequest)[],
  deps: VectorDeps,
): AsyncGenerator<{ statistics: StatsResponse } | { error: unknown }> {
  const { request, deps: assetDeps } = await vectorAsset(req, deps);
  yield* vectorZonesStats(request, geometries, assetDeps);
}

async function vectorAsset<T extends Omit<VectorStacRequest, 'aoi'>>(req: T, deps: VectorDeps): Promise<{ request: Omit<T, 'asset'>; deps: VectorDeps }> {
  const { item, base } = await fetchItem(checkItemUrl(req.url), deps.openSource, deps.signal);
  const [, asset] = pickAsset(item, req.asset);
  const url = resolveHref(base, asset.href as string);
  // CONTRACT §5: a Parquet path or a Parquet media type; otherwise 415.
  const knownParquet = isParquetAsset(asset);
  if (!knownParquet) checkParquetUrl(url);
  const { asset: _asset, ...rest } = req;
  return { request: { ...rest, url }, deps: { ...deps, knownParquet: true } };
}
