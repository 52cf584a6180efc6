/**
 * What a data cube is, for the page (sources/info): its variables (dimensions, shape, chunks, type, units)
 * and, of its first gridded variable, the dimensions' extents (time as ISO 8601 in its calendar) and the
 * grid's footprint. Reads the metadata and the coordinates only, never a chunk of data.
 */
import { ZonalError } from '../errors.ts';
import { openCatalog, openCube, type Cube } from '../cube/reader.ts';
import { coordinateOf } from '../cube/select.ts';
import { isReferenceUrl, openCubeStore } from '../cube/store.ts';
import type { ByteSource } from '../source/source.ts';
import { toWorld } from '../geometry/grid.ts';
import { boundsOf, lonLatRing, ring, type Footprint } from './footprint.ts';

/** Variables described at most (a store may hold many arrays). */
const MAX_VARIABLES = 200;

export interface CubeInfoAnswer {
  kind: 'cube';
  url: string;
  store: 'zarr' | 'references';
  variables: { name: string; dimensions: string[]; shape: number[]; chunks: number[]; data_type: string; units: string | null; long_name: string | null }[];
  /** The first gridded variable's dimensions: size and first and last coordinates. */
  dimensions: { name: string; size: number; first: string | number | null; last: string | number | null }[];
  bounds: [number, number, number, number] | null;
  footprint: Footprint | null;
  /** Why something is missing (a store that cannot list its arrays). */
  note?: string;
}

/** Whether a URL names a cube: a kerchunk reference file (.json) or a Zarr store (its path ends in .zarr). */
export function isCubeUrl(url: string): boolean {
  return isReferenceUrl(url) || /\.zarr\/?$/i.test(new URL(url).pathname);
}

function extentOf(cube: Cube): CubeInfoAnswer['dimensions'] {
  const { array, grid, xDim } = cube;
  return array.dims.map((name, d) => {
    const other = cube.dims.find((x) => x.index === d);
    if (other) {
      const n = other.values.length;
      return { name, size: n, first: n > 0 ? coordinateOf(other, 0) : null, last: n > 0 ? coordinateOf(other, n - 1) : null };
    }
    // Cell centres: half-way between the edges (a rectilinear axis's bounds too).
    const size = array.shape[d] as number;
    const axis = d === xDim ? 0 : 1;
    return { name, size, first: toWorld(grid, 0.5, 0.5)[axis], last: toWorld(grid, size - 0.5, size - 0.5)[axis] };
  });
}

export async function cubeInfo(url: string, deps: { openSource(url: string): Promise<ByteSource>; signal?: AbortSignal }): Promise<CubeInfoAnswer> {
  const store = await openCubeStore(url, { openSource: deps.openSource, maxBytes: 64 * 1024 * 1024, ...(deps.signal ? { signal: deps.signal } : {}) });
  const catalog = await openCatalog(store, deps.signal);
  const names = catalog.names();
  const arrays = (await Promise.all((names ?? []).slice(0, MAX_VARIABLES).map((n) => catalog.array(n)))).filter((a) => a !== undefined);
  // Data variables: not the coordinate of a dimension, with two dimensions or more.
  const dims = new Set(arrays.flatMap((a) => a.dims));
  const data = arrays.filter((a) => a.shape.length >= 2 && !dims.has(a.path));
  let cube: Cube | null = null;
  for (const a of data) {
    try {
      cube = await openCube(store, a.path, deps.signal);
      break;
    } catch (e) {
      if (!(e instanceof ZonalError)) throw e;
    }
  }
  let footprint: Footprint | null = null;
  if (cube !== null) {
    const g = cube.grid;
    const x1 = g.x0 + g.dx * g.width;
    const y1 = g.y0 + g.dy * g.height;
    // The cells of a row centred on a pole reach past it (edges half-way between centres): the map stops at the pole.
    const lat = (y: number): number => (cube?.crs.isGeographic ? Math.max(-90, Math.min(90, y)) : y);
    footprint = ring(lonLatRing(cube.crs.proj4, (u, v) => [g.x0 + u * (x1 - g.x0), lat(g.y0 + v * (y1 - g.y0))]));
  }
  const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const answer: CubeInfoAnswer = {
    kind: 'cube',
    url,
    store: store.kind,
    variables: data.map((a) => ({
      name: a.path,
      dimensions: [...a.dims],
      shape: [...a.shape],
      chunks: [...a.chunks],
      data_type: a.dtype,
      units: text(a.attrs['units']),
      long_name: text(a.attrs['long_name']),
    })),
    dimensions: cube ? extentOf(cube) : [],
    bounds: footprint ? boundsOf(footprint.coordinates[0] ?? []) : null,
    footprint,
  };
  if (names === null) answer.note = 'The store has no consolidated metadata, so its arrays cannot be listed: name the variable in a cube request.';
  return answer;
}
