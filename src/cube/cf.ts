/**
 * Pure: the CF conventions a cube's variable is read by (CF 1.11): which dimensions are its spatial axes,
 * the grid their coordinates (or bounds) make, the CRS of its grid mapping, and how raw values become
 * numbers (scale_factor, add_offset, _FillValue, missing_value, valid_*). What cannot be read exactly is a
 * 422 in the user's words.
 */
import { ZonalError } from '../errors.ts';
import type { CrsInfo } from '../geometry/crs.ts';
import type { Grid } from '../geometry/grid.ts';
import { effectiveNodata } from '../raster/pixels.ts';

export type Attrs = Readonly<Record<string, unknown>>;

export const WGS84: CrsInfo = { proj4: '+proj=longlat +datum=WGS84 +no_defs', isGeographic: true, epsg: 4326, name: 'EPSG:4326' };

const LON_NAMES = new Set(['lon', 'longitude', 'long', 'nav_lon']);
const LAT_NAMES = new Set(['lat', 'latitude', 'nav_lat']);

/** Which spatial axis a dimension is, by its coordinate's attributes (CF §4) or its name; null: not spatial. */
export function axisOf(dim: string, attrs: Attrs): 'x' | 'y' | null {
  const axis = typeof attrs['axis'] === 'string' ? attrs['axis'].toUpperCase() : '';
  const sn = typeof attrs['standard_name'] === 'string' ? attrs['standard_name'] : '';
  const units = typeof attrs['units'] === 'string' ? attrs['units'] : '';
  if (axis === 'X' || sn === 'longitude' || sn === 'projection_x_coordinate' || sn === 'grid_longitude' || /^degrees?_?e(ast)?$/i.test(units)) return 'x';
  if (axis === 'Y' || sn === 'latitude' || sn === 'projection_y_coordinate' || sn === 'grid_latitude' || /^degrees?_?n(orth)?$/i.test(units)) return 'y';
  if (axis === 'T' || axis === 'Z') return null;
  const name = dim.toLowerCase();
  if (LON_NAMES.has(name) || name === 'x') return 'x';
  if (LAT_NAMES.has(name) || name === 'y') return 'y';
  return null;
}

/** Whether an axis is in degrees (longitude/latitude) rather than projected units. */
export function isAngular(dim: string, attrs: Attrs): boolean {
  const sn = typeof attrs['standard_name'] === 'string' ? attrs['standard_name'] : '';
  const units = typeof attrs['units'] === 'string' ? attrs['units'] : '';
  if (sn === 'longitude' || sn === 'latitude' || /^degrees?(_?[en](orth|ast)?)?$/i.test(units)) return true;
  if (sn.startsWith('projection_') || /^(m|metres?|meters?|km)$/i.test(units)) return false;
  return LON_NAMES.has(dim.toLowerCase()) || LAT_NAMES.has(dim.toLowerCase());
}

/**
 * One spatial axis's cell edges: the first edge and the mean step (negative when descending); `edges` (count
 * + 1 of them) where its bounds give cells of unequal size (a rectilinear axis, as Gaussian latitudes).
 */
export interface AxisEdges {
  first: number;
  step: number;
  count: number;
  edges?: Float64Array;
}

/** Relative tolerance of a regular axis: float32 coordinates (0.1° steps written as float32) are regular to ~1e-4 of a step. */
function tolerance(dtype: string): number {
  return dtype === 'float32' || dtype === 'float16' ? 1e-3 : 1e-6;
}

function irregular(dim: string, why: string): ZonalError {
  return new ZonalError(
    'unsupported_grid',
    `The axis "${dim}" is not regular (${why}): give the axis a "bounds" variable (each cell's two edges, contiguous), or regrid the cube.`,
  );
}

/** The edges of a regular axis from its cell centres (edges half-way between them), or a 422. */
export function edgesFromCentres(dim: string, values: ArrayLike<number>, dtype: string): AxisEdges {
  const n = values.length;
  if (n === 0) throw irregular(dim, 'it has no values');
  const v0 = values[0] as number;
  if (n === 1) throw irregular(dim, 'one value gives no cell size; give it a "bounds" variable');
  const step = ((values[n - 1] as number) - v0) / (n - 1);
  if (!(Math.abs(step) > 0) || !Number.isFinite(step)) throw irregular(dim, 'its values do not change');
  const tol = Math.abs(step) * tolerance(dtype);
  for (let i = 1; i < n - 1; i++) {
    if (Math.abs((values[i] as number) - (v0 + i * step)) > tol) throw irregular(dim, `value ${i} is ${values[i]}, not ${v0 + i * step}`);
  }
  return { first: v0 - step / 2, step, count: n };
}

/**
 * The edges of an axis from its bounds variable ([n, 2]: each cell's two edges): contiguous cells running
 * one way. Equal cells make a regular axis; unequal ones a rectilinear axis whose edges are the bounds.
 */
export function edgesFromBounds(dim: string, bounds: ArrayLike<number>, n: number, dtype: string): AxisEdges {
  if (bounds.length !== 2 * n) throw irregular(dim, 'its bounds variable does not give two edges per cell');
  const b0 = bounds[0] as number;
  const last = bounds[2 * n - 1] as number;
  const step = (last - b0) / n;
  if (!(Math.abs(step) > 0) || !Number.isFinite(step)) throw irregular(dim, 'its bounds do not run one way');
  const tol = tolerance(dtype);
  let equal = true;
  const edges = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const lo = bounds[2 * i] as number;
    const hi = bounds[2 * i + 1] as number;
    const size = hi - lo;
    if (!(Math.sign(size) === Math.sign(step)) || !Number.isFinite(size)) throw irregular(dim, `cell ${i}'s bounds [${lo}, ${hi}] do not run the axis's way`);
    if (i > 0) {
      const prev = edges[i] as number;
      const gap = Math.abs(lo - prev);
      if (gap > Math.abs(size) * tol && gap > Math.abs(prev - (edges[i - 1] as number)) * tol) {
        throw irregular(dim, `cell ${i}'s bounds [${lo}, ${hi}] leave a gap or an overlap after [${edges[i - 1]}, ${prev}]`);
      }
    }
    edges[i] = lo;
    edges[i + 1] = hi;
    if (Math.abs(lo - (b0 + i * step)) > Math.abs(step) * tol || Math.abs(hi - (b0 + (i + 1) * step)) > Math.abs(step) * tol) equal = false;
  }
  return equal ? { first: b0, step, count: n } : { first: b0, step, count: n, edges };
}

/** The grid of the two axes (rows along y, columns along x, as the array's indexes run). */
export function gridOf(x: AxisEdges, y: AxisEdges): Grid {
  return {
    x0: x.first,
    y0: y.first,
    dx: x.step,
    dy: y.step,
    rx: 0,
    ry: 0,
    width: x.count,
    height: y.count,
    ...(x.edges ? { xEdges: x.edges } : {}),
    ...(y.edges ? { yEdges: y.edges } : {}),
  };
}

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : Array.isArray(v) && typeof v[0] === 'number' ? v[0] : undefined;

/** The ellipsoid terms of a CF grid mapping (+a/+rf, +R, or WGS84). */
function ellipsoid(gm: Attrs): string {
  const a = num(gm['semi_major_axis']);
  const rf = num(gm['inverse_flattening']);
  const b = num(gm['semi_minor_axis']);
  const r = num(gm['earth_radius']);
  if (r !== undefined) return `+R=${r}`;
  if (a !== undefined && rf !== undefined) return rf === 0 ? `+R=${a}` : `+a=${a} +rf=${rf}`;
  if (a !== undefined && b !== undefined) return `+a=${a} +b=${b}`;
  return '+datum=WGS84';
}

const parallels = (gm: Attrs): number[] => {
  const sp = gm['standard_parallel'];
  return Array.isArray(sp) ? sp.filter((v): v is number => typeof v === 'number') : typeof sp === 'number' ? [sp] : [];
};

/** A CF grid mapping's attributes (CF Appendix F) as a proj4 definition; null for a mapping not listed here. */
export function proj4OfGridMapping(gm: Attrs): string | null {
  const name = String(gm['grid_mapping_name'] ?? '');
  const f = (k: string, d = 0): number => num(gm[k]) ?? d;
  const common = `+x_0=${f('false_easting')} +y_0=${f('false_northing')} ${ellipsoid(gm)} +units=m +no_defs`;
  const sp = parallels(gm);
  switch (name) {
    case 'latitude_longitude':
      return `+proj=longlat ${ellipsoid(gm)} +no_defs`;
    case 'polar_stereographic': {
      const lat0 = f('latitude_of_projection_origin', 90);
      const lon0 = num(gm['straight_vertical_longitude_from_pole']) ?? f('longitude_of_projection_origin');
      const ts = sp[0] !== undefined ? `+lat_ts=${sp[0]}` : `+k_0=${f('scale_factor_at_projection_origin', 1)}`;
      return `+proj=stere +lat_0=${lat0} +lon_0=${lon0} ${ts} ${common}`;
    }
    case 'lambert_conformal_conic':
      return `+proj=lcc +lat_1=${sp[0] ?? 0} +lat_2=${sp[1] ?? sp[0] ?? 0} +lat_0=${f('latitude_of_projection_origin')} +lon_0=${f('longitude_of_central_meridian')} ${common}`;
    case 'albers_conical_equal_area':
      return `+proj=aea +lat_1=${sp[0] ?? 0} +lat_2=${sp[1] ?? sp[0] ?? 0} +lat_0=${f('latitude_of_projection_origin')} +lon_0=${f('longitude_of_central_meridian')} ${common}`;
    case 'transverse_mercator':
      return `+proj=tmerc +lat_0=${f('latitude_of_projection_origin')} +lon_0=${f('longitude_of_central_meridian')} +k_0=${f('scale_factor_at_central_meridian', 1)} ${common}`;
    case 'lambert_azimuthal_equal_area':
      return `+proj=laea +lat_0=${f('latitude_of_projection_origin')} +lon_0=${f('longitude_of_projection_origin')} ${common}`;
    case 'mercator':
      return sp[0] !== undefined
        ? `+proj=merc +lat_ts=${sp[0]} +lon_0=${f('longitude_of_projection_origin')} ${common}`
        : `+proj=merc +k_0=${f('scale_factor_at_projection_origin', 1)} +lon_0=${f('longitude_of_projection_origin')} ${common}`;
    case 'stereographic':
      return `+proj=stere +lat_0=${f('latitude_of_projection_origin')} +lon_0=${f('longitude_of_projection_origin')} +k_0=${f('scale_factor_at_projection_origin', 1)} ${common}`;
    case 'sinusoidal':
      return `+proj=sinu +lon_0=${f('longitude_of_central_meridian')} ${common}`;
    default:
      return null;
  }
}

/** How a variable's raw samples become values (CF §8.1): nodata values and the valid range in packed units, then scale and offset. */
export interface Packing {
  nodata: number | null;
  also: number[];
  validMin?: number;
  validMax?: number;
  scale: number;
  offset: number;
}

const numbers = (v: unknown): number[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).map(Number);

/**
 * The packing of a variable of sample type `dtype` whose zarr fill_value is `fill`: _FillValue (else the
 * fill value, as xarray reads Zarr), missing_value, valid_min/valid_max/valid_range, all compared in the
 * variable's own type; scale_factor and add_offset.
 */
export function packingOf(attrs: Attrs, dtype: string, fill: number | null): Packing {
  const fillAttr = attrs['_FillValue'];
  const fv = fillAttr === undefined ? fill : (numbers(fillAttr)[0] ?? null);
  const nodata = effectiveNodata(fv === null || Number.isNaN(fv) ? null : fv, dtype);
  const also = numbers(attrs['missing_value'])
    .map((v) => effectiveNodata(v, dtype))
    .filter((v): v is number => v !== null && v !== nodata && !Number.isNaN(v));
  const range = numbers(attrs['valid_range']);
  const lo = range.length === 2 ? range[0] : numbers(attrs['valid_min'])[0];
  const hi = range.length === 2 ? range[1] : numbers(attrs['valid_max'])[0];
  const packing: Packing = {
    nodata,
    also,
    scale: num(attrs['scale_factor']) ?? 1,
    offset: num(attrs['add_offset']) ?? 0,
  };
  const inType = (v: number | undefined): number | undefined => (v === undefined ? undefined : (effectiveNodata(v, dtype) ?? undefined));
  const validMin = inType(lo);
  const validMax = inType(hi);
  if (validMin !== undefined) packing.validMin = validMin;
  if (validMax !== undefined) packing.validMax = validMax;
  return packing;
}
