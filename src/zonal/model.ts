/**
 * What the use cases are asked and what they answer, in the domain's own terms. The wire (schemas/: TypeBox
 * for HTTP and the CLI) describes the same shapes; the HTTP layer and the CLI hand their checked bodies
 * over as these types, so the use cases never see a schema.
 */
import type { AoiInput } from '../geometry/aoi.ts';
import type { ZonalError } from '../errors.ts';
import type { PixelRule } from '../coverage/coverage.ts';
import type { CoverageWeight } from '../stats/weighting.ts';

/** A GeoJSON Point (with an optional radius in metres), Polygon or MultiPolygon in WGS84 lon/lat. */
export type Geometry = AoiInput;

/** One zone as given: a FeatureCollection's feature (or a zones file's row), or the request's single AOI (index 0). */
export interface ZoneInput {
  index: number;
  id: string | number | null;
  properties: Record<string, unknown> | null;
  /** The geometry as given (answered back when asked: `include_geometry`). */
  geometry: unknown;
}

/** A zone ready for the use cases: its geometry checked as a single AOI is (the radius applied), or why it is none: that zone's answer. */
export interface Zone extends ZoneInput {
  aoi: Geometry | ZonalError;
}

/** One band's (or column's, or the expression's) statistics: aoi_area and data_area always, then the statistics asked. */
export type BandStats = { aoi_area: number; data_area: number } & Record<string, unknown>;
/** The statistics of one zone: one key per band (`band_<n>`), column or `expression`. */
export type StatsResponse = Record<string, BandStats>;

/** A zone's problem, as its answer carries it. */
export interface ZoneError {
  status: number;
  code: string;
  detail: string;
}

/** One answer: a zone's statistics or its problem (zones × time: one per zone and Item). */
export interface ZoneOutcome {
  zone: ZoneInput;
  /**
   * zones × time: the STAC Item of this row (its id and datetime); absent otherwise, null for a zone's row
   * without an Item. A mosaic's row (`mosaic: "day"`): the Item whose grid it is on, the first Item's
   * datetime, and every Item merged into it (`item_ids`, in search order).
   */
  item?: { id: string; datetime: string; item_ids?: string[] } | null;
  /** A cube's row: the coordinate of each iterated dimension (time as ISO 8601 text), in the variable's order; null for a zone's row without a step. */
  coords?: Record<string, string | number> | null;
  statistics?: StatsResponse;
  error?: ZoneError;
  /** The error itself (its extras: limits, paths), for an answer of one zone that is the request's problem. */
  cause?: unknown;
  /** Never: packed rows are a ZoneRows, which a consumer of outcomes takes row by row (zonal/rows.ts). */
  rows?: never;
}

/**
 * Many rows of one zone at once, packed (a cube's zone: a row per step): row i is the outcome
 * `{zone, coords: coords(i), statistics: {[key]: {names[k]: values[i · names.length + k]}}}`, a NaN value
 * being null and `extra[i]` holding the values that are not numbers. A format writes them without an
 * object per row (formats/ndjson.ts); the others take them row by row (zonal/rows.ts eachRow).
 */
export interface ZoneRows {
  zone: ZoneInput;
  rows: {
    count: number;
    key: string;
    names: readonly string[];
    values: Float64Array;
    extra: readonly (Record<string, unknown> | null)[] | null;
    /** The row's coordinates: the same object for one step in every zone (formats cache its text). */
    coords(row: number): Record<string, string | number>;
  };
}

/** What a use case answers: an outcome, or a zone's many rows at once. */
export type Answered = ZoneOutcome | ZoneRows;

/** A raster question without its source: what to answer of each zone. */
interface RasterOptions {
  stats?: string[];
  bands?: number[];
  pixels?: PixelRule;
  /** exactextract's weighting arguments, defaults of every statistic that does not give its own. */
  coverage_weight?: CoverageWeight;
  min_coverage_frac?: number;
  default_value?: number;
  default_weight?: number;
  /** exactextract's weighting raster (weighted_* statistics). */
  weights?: { url?: string; asset?: string; band?: number };
  /** Zones given as a raster (in place of polygons): each distinct value of its band is a zone (zonal/raster-zones.ts). */
  zones?: { url?: string; asset?: string; band?: number };
  expression?: string;
  mask?: { band?: number; asset?: string; include?: number[]; exclude?: number[] };
  histogram?: { bins: number | number[]; range?: [number, number] };
  categorical?: boolean;
  approx_stats?: boolean;
}

export interface RasterQuery extends RasterOptions {
  url: string;
}

export interface VectorQuery {
  url: string;
  columns: string[];
  stats?: string[];
  geometry_column?: string;
  weighting_method?: 'area' | 'ratio';
}

/** zones × time: where the Items come from, which asset, and which Items each zone takes. */
export interface StacSearchQuery extends RasterOptions {
  stac: { url: string; collections?: string[]; datetime?: string; filter?: Record<string, unknown>; max_items?: number };
  asset?: string;
  time?: { rule: 'all' | 'asof' | 'nearest' | 'window'; date?: string; property?: string; days?: number };
  /** `day`: the Items of one collection and UTC day merged into one row per zone, first valid pixel in search order (zonal/stac-mosaic.ts). */
  mosaic?: 'none' | 'day';
}

/** A cube's variable (Zarr v2/v3, or NetCDF through kerchunk references) per zone and step. */
export interface CubeQuery extends Omit<RasterOptions, 'bands' | 'weights' | 'zones' | 'mask' | 'approx_stats'> {
  url: string;
  /** The variable answered; with an expression, the one whose grid is answered (default: the expression's first). */
  variable?: string;
  /** Per non-spatial dimension: one value (pinned), an inclusive range, or a list. */
  sel?: Record<string, number | string | (number | string)[] | { start?: number | string; end?: number | string }>;
  sel_method?: 'exact' | 'nearest';
}

/** Every question the service answers: a raster or a GeoParquet file, directly or as an asset of a STAC Item, or zones × time. */
export type Question =
  | ({ kind: 'raster' } & RasterQuery)
  | ({ kind: 'raster-stac'; asset?: string } & RasterQuery)
  | ({ kind: 'raster-stac-search' } & StacSearchQuery)
  | ({ kind: 'vector' } & VectorQuery)
  | ({ kind: 'vector-stac'; asset?: string } & VectorQuery)
  | ({ kind: 'cube' } & CubeQuery);
