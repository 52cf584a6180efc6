/**
 * The CRS table (fixtures/crs/, written by tools/oracle/crs_oracle.py with GDAL 3.6 and PROJ 9.1): for
 * each tiny GeoTIFF, the service reads its GeoKeys as it reads any raster (openRaster), and the CRS it
 * builds must put each point where GDAL puts it (GDAL's reading of the same GeoKeys, in the file's model
 * space): within 1 mm, or 1e-9° for lon/lat rasters; and back again within 1e-7° (proj4js inverts
 * several projections by series or iteration that stop near 1e-8°, about a millimetre; the service
 * selects pixels with the forward transformation). A CRS the service refuses must be a 422 that names it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import proj4 from 'proj4';
import { openRaster } from '../../src/raster/reader.ts';
import { MemorySource } from '../../src/source/memory.ts';
import { makeTransformer } from '../../src/geometry/reproject.ts';
import { ZonalError } from '../../src/errors.ts';

interface Row {
  name: string;
  srs: string;
  family: string;
  method: string;
  tif: string;
  geographic: boolean;
  units_to_metre: number;
  points: { lon: number; lat: number; x: number; y: number }[];
  expect: 'read' | 'refuse';
  reason?: string;
}

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'crs');
const INVERSE_DEG = 1e-7;
const TABLE = JSON.parse(readFileSync(join(DIR, 'table.json'), 'utf8')) as Row[];

/**
 * The projection alone, as GDAL's points are (from the CRS's own lon/lat, no datum shift): the service's
 * definition without its +towgs84 (proj4js would otherwise go through WGS 84 and back, which is the
 * datum shift's business, tested in crs.test.ts), and the lon/lat CRS on its ellipsoid, east of
 * Greenwich in degrees. Built from what proj4js parsed, so it holds for a PROJ string and for WKT alike.
 */
function projectionAlone(def: string): { base: string; def: string } {
  const p = proj4.Proj(def) as unknown as { a: number; b: number };
  return { base: `+proj=longlat +a=${p.a} +b=${p.b} +no_defs`, def: def.replace(/\s*\+towgs84=\S+/, '') };
}

async function crsOf(row: Row) {
  const bytes = readFileSync(join(DIR, row.tif));
  const reader = await openRaster(new MemorySource(bytes));
  return reader.info.crs;
}

describe('CRS table (GeoKeys as GDAL reads them)', () => {
  it('covers at least 40 EPSG codes and every projection family the issue names', () => {
    expect(TABLE.filter((r) => r.srs.startsWith('EPSG:')).length).toBeGreaterThanOrEqual(40);
    const families = new Set(TABLE.map((r) => r.family));
    for (const f of [
      'polar stereographic',
      'Lambert azimuthal equal area',
      'Albers equal area',
      'Lambert conic conformal',
      'Mercator',
      'Transverse Mercator',
      'oblique stereographic',
      'Hotine oblique Mercator',
      'Krovak',
      'Equal Earth',
      'sinusoidal',
      'Cassini-Soldner',
      'equidistant cylindrical',
      'geostationary',
      'geographic',
    ]) {
      expect(families.has(f), f).toBe(true);
    }
  });

  for (const row of TABLE.filter((r) => r.expect === 'read')) {
    it(`${row.name}: ${row.family}, ${row.method} (${row.srs})`, async () => {
      const crs = await crsOf(row);
      expect(crs.isGeographic).toBe(row.geographic);
      const { base, def } = projectionAlone(crs.proj4);
      const t = makeTransformer(base, def);
      expect(row.points.length).toBeGreaterThanOrEqual(3);
      for (const p of row.points) {
        const [x, y] = t.forward([p.lon, p.lat]);
        const where = `${row.name} at (${p.lon}, ${p.lat}) with ${crs.proj4}`;
        if (row.geographic) {
          expect(Math.abs((x as number) - p.x), where).toBeLessThanOrEqual(1e-9);
          expect(Math.abs((y as number) - p.y), where).toBeLessThanOrEqual(1e-9);
        } else {
          expect(Math.hypot((x as number) - p.x, (y as number) - p.y) * row.units_to_metre, where).toBeLessThanOrEqual(1e-3);
        }
        const [lon, lat] = t.inverse([p.x, p.y]);
        expect(Math.abs((lon as number) - p.lon), where).toBeLessThanOrEqual(INVERSE_DEG);
        expect(Math.abs((lat as number) - p.lat), where).toBeLessThanOrEqual(INVERSE_DEG);
      }
    });
  }

  for (const row of TABLE.filter((r) => r.expect === 'refuse')) {
    it(`${row.name}: refused with a 422 that names it (${row.reason ?? ''})`, async () => {
      const err = await crsOf(row).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ZonalError);
      expect((err as ZonalError).status).toBe(422);
      expect((err as ZonalError).message).toMatch(new RegExp(refusalWords(row), 'i'));
    });
  }
});

/** What the refusal must name: the EPSG code, the method, or the name its reason starts with. */
function refusalWords(row: Row): string {
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const names = [row.method, (row.reason ?? '').split(':')[0] ?? ''];
  if (row.srs.startsWith('EPSG:')) names.push(`${row.srs}\\b`);
  return names
    .filter((n) => n !== '')
    .map((n) => (n.endsWith('\\b') ? n : escape(n)))
    .join('|');
}
