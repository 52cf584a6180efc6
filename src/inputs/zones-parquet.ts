/**
 * A GeoParquet zones file read by slices: its footer once (vector/reader.ts), then, for each slice, only the
 * row groups that hold its rows. Each row is a zone; its numeric columns are its properties (the project's
 * reader decodes numbers only: text columns are not carried). A projected file's vertices are moved to
 * lon/lat.
 */
import type { ZoneInput as Zone } from '../zonal/model.ts';
import type { ByteSource } from '../source/source.ts';
import { openGeoParquet, type FeatureBatch } from '../vector/reader.ts';
import { crsFromProjJson } from '../vector/crs.ts';
import { wkbToShape } from '../geometry/wkb.ts';
import { makeTransformer } from '../geometry/reproject.ts';
import type { Position } from '../geometry/types.ts';
import { ZonesFileError } from './errors.ts';
import { mapPositions, shapeToGeometry, type GeoJsonGeometry } from './geometry.ts';
import { sliceBounds, type ZonesFile, type ZonesOptions, type ZonesReader } from './model.ts';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

/** What turning a row of a decoded row group into a zone needs. */
interface RowContext {
  name: string;
  numeric: string[];
  idColumn: string | undefined;
  move: ((p: Position) => Position) | null;
}

/** Opens a GeoParquet zones file: reads its footer only; `count` is the sum of its row groups' rows. */
export async function openParquetZones(source: ByteSource, name: string, options: ZonesOptions): Promise<ZonesReader> {
  const reader = await openGeoParquet(source, options.geometryColumn);
  const { info } = reader;
  const numeric = info.columns.filter((c) => c.numeric).map((c) => c.name);
  const idColumn = options.idColumn;
  if (idColumn !== undefined && !numeric.includes(idColumn)) {
    throw new ZonesFileError(
      `The zones file ${name} has no numeric column "${idColumn}" for --id-column (GeoParquet zones can take their id from a numeric column only; numeric columns: ${numeric.join(', ') || 'none'}).`,
    );
  }
  const crs = crsFromProjJson(info.geo.crs);
  const ctx: RowContext = { name, numeric, idColumn, move: crs.isGeographic ? null : makeTransformer(crs.proj4, WGS84).forward };
  return {
    format: 'geoparquet',
    count: info.numRows,
    async read(from, to) {
      const [start, end] = sliceBounds(from, to, info.numRows);
      const file: ZonesFile = { zones: [], unreadable: new Map() };
      for (const group of info.rowGroups) {
        const groupEnd = group.rowStart + group.numRows;
        if (group.rowStart >= end || groupEnd <= start) continue;
        const batch = await reader.readGroup(group.index, numeric);
        for (let row = Math.max(start, group.rowStart); row < Math.min(end, groupEnd); row++) {
          file.zones.push(zoneOfRow(batch, row - group.rowStart, row, ctx, file.unreadable));
        }
      }
      return file;
    },
  };
}

/** Row `i` of a decoded row group as the zone `index` of the file; an unreadable geometry's reason goes to `unreadable`. */
function zoneOfRow(batch: FeatureBatch, i: number, index: number, ctx: RowContext, unreadable: Map<number, string>): Zone {
  const bytes = batch.wkb[i];
  let geometry: GeoJsonGeometry | null = null;
  try {
    geometry = bytes ? shapeToGeometry(wkbToShape(bytes)) : null;
    if (geometry === null) unreadable.set(index, `Zone ${index} (row ${index} of ${ctx.name}) has an empty or null geometry.`);
  } catch {
    unreadable.set(index, `Zone ${index} (row ${index} of ${ctx.name}) has a geometry that is not readable WKB.`);
  }
  if (ctx.move && geometry) geometry = mapPositions(geometry, ctx.move);
  const properties: Record<string, unknown> = {};
  for (const c of ctx.numeric) {
    if (c === ctx.idColumn) continue;
    const v = (batch.values.get(c) as Float64Array)[i] as number;
    properties[c] = Number.isNaN(v) ? null : v;
  }
  const idValue = ctx.idColumn !== undefined ? ((batch.values.get(ctx.idColumn) as Float64Array)[i] as number) : Number.NaN;
  return { index, id: Number.isNaN(idValue) ? null : idValue, properties, geometry };
}
