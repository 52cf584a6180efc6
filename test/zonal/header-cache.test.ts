/** Parsed COG headers are reused per URL + validator: a file replaced in place is parsed again. */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, FIXTURES } from '../helpers/build-app.ts';

// ±0.001° around the tiny grid (UTM 33N, 6 × 4 px from x=500000, y=5000000): covers all of it.
const AOI = {
  type: 'Polygon',
  coordinates: [
    [
      [14.9994, 45.1523],
      [15.0014, 45.1523],
      [15.0014, 45.1543],
      [14.9994, 45.1543],
      [14.9994, 45.1523],
    ],
  ],
};

describe('parsed header cache', () => {
  let app: FastifyInstance;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'zonal-hdr-'));
    app = await buildTestApp({ dataRoots: [dir] });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers from the new file after the file is replaced', async () => {
    const path = join(dir, 'x.tif');
    const ask = async () =>
      (
        await app.inject({
          method: 'POST',
          url: '/api/v1/zonal-stats/raster',
          payload: { url: pathToFileURL(path).href, aoi: AOI, stats: ['min', 'max', 'count'] },
        })
      ).json().band_1;
    copyFileSync(join(FIXTURES, 'raster/synthetic/tiny_uint8.tif'), path);
    // uint8: row·6 + col + 1, nodata 250 at (5,3)
    expect(await ask()).toMatchObject({ min: 1, max: 23, count: 23 });
    expect(await ask()).toMatchObject({ min: 1, max: 23, count: 23 });
    copyFileSync(join(FIXTURES, 'raster/synthetic/tiny_float64.tif'), path);
    // float64: row·6 + col − 5 + 0.25, nodata −9999 at (5,3)
    expect(await ask()).toMatchObject({ min: -4.75, max: 17.25, count: 23 });
  });
});
