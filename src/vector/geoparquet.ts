import { isGeoArrowEncoding } from './geoarrow.ts';
/**
 * Pure: the GeoParquet `geo` metadata (1.0 / 1.1) → geometry column, CRS and bbox covering column
 * (contract §5 vector rules). Files without `geo` metadata still work: the geometry column is found by
 * name and the CRS is OGC:CRS84.
 */
import { ZonalError } from '../errors.ts';

/** Names tried, in order, when neither the request nor the metadata names the geometry column. */
export const GEOMETRY_COLUMN_NAMES = ['geometry', 'geom', 'the_geom', 'wkb_geometry', 'shape'];

export interface GeoColumn {
  /** As the file spells it. */
  name: string;
  encoding: string;
  /** PROJJSON, or null for OGC:CRS84 (GeoParquet's default when the key is absent). */
  crs: Record<string, unknown> | null;
  /** Top-level struct column holding xmin/ymin/xmax/ymax (GeoParquet 1.1 covering), if declared. */
  bboxColumn: { column: string; xmin: string; ymin: string; xmax: string; ymax: string } | null;
  /** The file's declared bbox [minX, minY, maxX, maxY], if any. */
  bbox: number[] | null;
}

interface GeoMetadata {
  primary_column?: string;
  columns?: Record<string, Record<string, unknown>>;
}

function parseGeo(raw: string | undefined): GeoMetadata | null {
  if (raw === undefined) return null;
  try {
    const v = JSON.parse(raw) as unknown;
    return v && typeof v === 'object' ? (v as GeoMetadata) : null;
  } catch {
    throw new ZonalError('invalid_source', 'The GeoParquet "geo" metadata is not valid JSON.');
  }
}

function covering(meta: Record<string, unknown>): GeoColumn['bboxColumn'] {
  const cov = (meta['covering'] as { bbox?: Record<string, unknown> } | undefined)?.bbox;
  if (!cov) return null;
  const path = (k: string) => (Array.isArray(cov[k]) ? (cov[k] as string[]) : null);
  const [xmin, ymin, xmax, ymax] = ['xmin', 'ymin', 'xmax', 'ymax'].map(path);
  if (!xmin || !ymin || !xmax || !ymax) return null;
  const column = xmin[0];
  if (!column || [ymin, xmax, ymax].some((p) => p[0] !== column) || [xmin, ymin, xmax, ymax].some((p) => p.length !== 2)) return null;
  return { column, xmin: xmin[1] as string, ymin: ymin[1] as string, xmax: xmax[1] as string, ymax: ymax[1] as string };
}

/**
 * Chooses the geometry column (request's `geometry_column` case-insensitively, else `primary_column`,
 * else the first of GEOMETRY_COLUMN_NAMES present) and reads its GeoParquet metadata.
 * @param fileColumns top-level column names of the file
 */
export function resolveGeoColumn(geoJson: string | undefined, fileColumns: readonly string[], requested: string | undefined): GeoColumn {
  const geo = parseGeo(geoJson);
  const byLower = new Map<string, string>();
  for (const c of fileColumns) if (!byLower.has(c.toLowerCase())) byLower.set(c.toLowerCase(), c);
  let name: string | undefined;
  if (requested !== undefined) {
    // An exact spelling wins over a case-insensitive match.
    name = fileColumns.includes(requested) ? requested : byLower.get(requested.toLowerCase());
    if (name === undefined) {
      throw new ZonalError('validation_failed', `The file has no geometry column "${requested}"; its columns are: ${fileColumns.join(', ')}.`, {
        errors: [{ path: '/geometry_column', message: 'is not a column of the file' }],
      });
    }
  } else if (geo?.primary_column && byLower.has(geo.primary_column.toLowerCase())) {
    name = byLower.get(geo.primary_column.toLowerCase());
  } else {
    name = GEOMETRY_COLUMN_NAMES.map((n) => byLower.get(n)).find((n) => n !== undefined);
  }
  if (name === undefined) {
    throw new ZonalError('invalid_source', `The file has no geometry column (looked for ${GEOMETRY_COLUMN_NAMES.join(', ')}); name it with geometry_column.`);
  }
  const metaEntries = Object.entries(geo?.columns ?? {});
  const metaEntry = metaEntries.find(([k]) => k === name) ?? metaEntries.find(([k]) => k.toLowerCase() === (name as string).toLowerCase());
  const meta = metaEntry?.[1] ?? {};
  const encoding = typeof meta['encoding'] === 'string' ? (meta['encoding'] as string) : 'WKB';
  const native = isGeoArrowEncoding(encoding);
  if (encoding.toUpperCase() !== 'WKB' && !native) {
    throw new ZonalError(
      'invalid_source',
      `The geometry column "${name}" uses the ${encoding} encoding; WKB and the GeoArrow encodings (point, linestring, polygon, multipoint, multilinestring, multipolygon) are supported.`,
    );
  }
  const crs = meta['crs'];
  return {
    name,
    encoding: native ? encoding.toLowerCase() : 'WKB',
    crs: crs && typeof crs === 'object' ? (crs as Record<string, unknown>) : null,
    bboxColumn: covering(meta),
    bbox: Array.isArray(meta['bbox']) ? (meta['bbox'] as number[]) : null,
  };
}
