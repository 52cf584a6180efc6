/**
 * A cube opened: the variable's metadata (consolidated when the store has it, else each array's own), its
 * spatial axes and grid, CRS, packing, and its other dimensions with their coordinates; then, for a group of
 * steps, a RasterReader whose bands are those steps and whose blocks are the variable's spatial chunks —
 * so the raster use case answers a cube's steps as it answers a COG's bands, each chunk read once and
 * decoded in a worker (raster/decode.ts, codecs/zarr.ts).
 */
import { ZonalError } from '../errors.ts';
import type { CrsInfo } from '../geometry/crs.ts';
import { isValidProj4 } from '../geometry/reproject.ts';
import type { Grid } from '../geometry/grid.ts';
import type { BlockFormat, EncodedBlock } from '../raster/decode.ts';
import type { TileCodec } from '../raster/geotiff-adapter.ts';
import type { RasterLevel, RasterReader } from '../raster/reader.ts';
import { cStrides, decodeZarrRegion, hasZarrCodec } from '../codecs/zarr.ts';
import { axisOf, edgesFromBounds, edgesFromCentres, gridOf, isAngular, packingOf, proj4OfGridMapping, WGS84, type Attrs, type Packing } from './cf.ts';
import { timeAxis } from './cf-time.ts';
import type { Dimension } from './select.ts';
import type { CubeStore } from './store.ts';
import { chunkKey, parseV2, parseV3, type ZarrArray } from './zarr-meta.ts';

/** Coordinate arrays longer than this are not read (a 1-D axis of a cube is far shorter). */
const MAX_AXIS = 10_000_000;

/** The variable of a cube, as the use case reads it. */
export interface Cube {
  readonly store: CubeStore;
  readonly array: ZarrArray;
  readonly grid: Grid;
  readonly crs: CrsInfo;
  /** The variable's dimensions of its rows (y) and columns (x). */
  readonly yDim: number;
  readonly xDim: number;
  /** Its other dimensions, in its dimension order, with their index among its dimensions. */
  readonly dims: readonly (Dimension & { index: number })[];
  readonly packing: Packing;
}

/** How a store's arrays are found: consolidated metadata read once, else each array's own documents. */
export interface Catalog {
  array(path: string): Promise<ZarrArray | undefined>;
  /** The arrays the store lists (consolidated metadata, reference keys), for messages; null when it cannot list. */
  names(): string[] | null;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
const decoder = new TextDecoder();

/** The store's catalog: `.zmetadata` (v2) or a root `zarr.json` with consolidated_metadata (v3), else per-array reads. */
export async function openCatalog(store: CubeStore, signal?: AbortSignal): Promise<Catalog> {
  const docs = new Map<string, string>();
  const zmeta = await store.get('.zmetadata', signal);
  if (zmeta !== undefined) {
    try {
      const m = JSON.parse(decoder.decode(zmeta)) as { metadata?: Record<string, unknown> };
      for (const [k, v] of Object.entries(m.metadata ?? {})) docs.set(k, text(v));
    } catch {
      throw new ZonalError('invalid_source', "The store's consolidated metadata (.zmetadata) is not JSON.");
    }
  } else {
    const root = store.kind === 'zarr' ? await store.get('zarr.json', signal) : undefined;
    if (root !== undefined) {
      const cm = (JSON.parse(decoder.decode(root)) as { consolidated_metadata?: { metadata?: Record<string, unknown> } }).consolidated_metadata;
      for (const [k, v] of Object.entries(cm?.metadata ?? {})) docs.set(`${k}/zarr.json`, text(v));
    }
  }
  const consolidated = docs.size > 0;
  const get = async (key: string): Promise<string | undefined> => {
    if (consolidated) return docs.get(key);
    const b = await store.get(key, signal);
    return b === undefined ? undefined : decoder.decode(b);
  };
  return {
    async array(path) {
      const zarray = await get(`${path}/.zarray`);
      if (zarray !== undefined) return parseV2(path, zarray, await get(`${path}/.zattrs`));
      const v3 = await get(`${path}/zarr.json`);
      return v3 === undefined ? undefined : parseV3(path, v3);
    },
    names() {
      const keys = consolidated ? [...docs.keys()] : store.keys();
      return keys === null ? null : [...new Set(keys.filter((k) => /\/(\.zarray|zarr\.json)$/.test(k)).map((k) => k.replace(/\/(\.zarray|zarr\.json)$/, '')))];
    },
  };
}

/** Every codec of the array has a decoder, or a 422 naming the first that has none. */
async function checkCodecs(a: ZarrArray): Promise<void> {
  const known = await Promise.all(a.codecs.map(hasZarrCodec));
  const missing = a.codecs.find((_, k) => !known[k]);
  if (missing !== undefined) {
    throw new ZonalError(
      'unsupported_codec',
      `The array "${a.path}" is encoded with the codec "${missing.replace(/^numcodecs\./, '')}", which this service has no decoder for.`,
      {
        codec: missing,
      },
    );
  }
}

/** A small array (a coordinate, bounds) read whole and decoded here: its values in C order. */
async function readWhole(store: CubeStore, a: ZarrArray, signal?: AbortSignal): Promise<number[]> {
  await checkCodecs(a);
  const size = a.shape.reduce((p, n) => p * n, 1);
  if (size > MAX_AXIS)
    throw new ZonalError('unsupported_grid', `The coordinate "${a.path}" holds ${size.toLocaleString('en')} values, more than a cube's axis may.`);
  const out: number[] = Array.from({ length: size });
  const grid = a.shape.map((n, d) => Math.ceil(n / (a.chunks[d] as number)));
  const strides = cStrides(a.shape);
  const total = grid.reduce((p, n) => p * n, 1);
  const local = { ...a, path: '' };
  for (let k = 0; k < total; k++) {
    const coords = grid.map((_, d) => Math.floor(k / grid.slice(d + 1).reduce((p, n) => p * n, 1)) % (grid[d] as number));
    const bytes = await store.get(chunkKey(a, coords), signal);
    const region = coords.map((c, d): [number, number] => [c * (a.chunks[d] as number), Math.min((c + 1) * (a.chunks[d] as number), a.shape[d] as number)]);
    const r = await decodeZarrRegion(a.zarrFormat, a.docs, chunkKey(local, coords), bytes ?? null, region);
    const n = r.shape.reduce((p, x) => p * x, 1);
    for (let i = 0; i < n; i++) {
      let src = 0;
      let dst = 0;
      let rem = i;
      for (let d = r.shape.length - 1; d >= 0; d--) {
        const idx = rem % (r.shape[d] as number);
        rem = Math.floor(rem / (r.shape[d] as number));
        src += idx * (r.stride[d] as number);
        dst += (idx + (region[d] as [number, number])[0]) * (strides[d] as number);
      }
      out[dst] = Number(r.data[src]);
    }
  }
  return out;
}

/** The CRS of the variable: its grid mapping's WKT or CF attributes, else WGS84 for longitude/latitude axes. */
async function crsOf(catalog: Catalog, a: ZarrArray, angular: boolean): Promise<CrsInfo> {
  const gmName = typeof a.attrs['grid_mapping'] === 'string' ? a.attrs['grid_mapping'].trim().split(/[\s:]/)[0] : undefined;
  if (gmName) {
    const gm = await catalog.array(gmName);
    const attrs: Attrs = gm?.attrs ?? {};
    const wkt = typeof attrs['crs_wkt'] === 'string' ? attrs['crs_wkt'] : typeof attrs['spatial_ref'] === 'string' ? attrs['spatial_ref'] : null;
    const fromCf = proj4OfGridMapping(attrs);
    const def = fromCf ?? (wkt !== null && isValidProj4(wkt) ? wkt : null);
    if (def !== null && isValidProj4(def)) {
      const geographic = String(attrs['grid_mapping_name'] ?? '') === 'latitude_longitude';
      return { proj4: def, isGeographic: geographic, name: String(attrs['grid_mapping_name'] ?? gmName) };
    }
    if (!angular) {
      throw new ZonalError(
        'missing_crs',
        `The grid mapping "${gmName}" of "${a.path}" is not one this service reads (${String(attrs['grid_mapping_name'] ?? 'no grid_mapping_name')}).`,
      );
    }
  }
  if (angular) return WGS84;
  throw new ZonalError('missing_crs', `The variable "${a.path}" has projected axes but no grid_mapping: its CRS is unknown.`);
}

/** Opens the variable `name` of the store: its axes, grid, CRS, packing and other dimensions. */
export async function openCube(store: CubeStore, name: string, signal?: AbortSignal): Promise<Cube> {
  const catalog = await openCatalog(store, signal);
  const array = await catalog.array(name);
  if (array === undefined) {
    const names = catalog.names();
    throw new ZonalError(
      'unknown_variable',
      names ? `The cube has no variable "${name}": it has ${names.map((n) => `"${n}"`).join(', ')}.` : `The cube has no variable "${name}".`,
    );
  }
  await checkCodecs(array);
  const coords = await Promise.all(array.dims.map((d) => catalog.array(d)));
  const axes = array.dims.map((d, i) => axisOf(d, coords[i]?.attrs ?? {}));
  const xDim = axes.indexOf('x');
  const yDim = axes.indexOf('y');
  if (xDim < 0 || yDim < 0 || axes.lastIndexOf('x') !== xDim || axes.lastIndexOf('y') !== yDim) {
    throw new ZonalError(
      'unsupported_grid',
      `The variable "${name}" (dimensions ${array.dims.join(', ')}) has no one x and one y axis this service can tell (by axis, standard_name, units or name).`,
    );
  }
  const edges = await Promise.all(
    [xDim, yDim].map(async (d) => {
      const dim = array.dims[d] as string;
      const c = coords[d];
      if (c === undefined) throw new ZonalError('unsupported_grid', `The axis "${dim}" has no coordinate variable: its cells have no position.`);
      const bname = typeof c.attrs['bounds'] === 'string' ? c.attrs['bounds'] : undefined;
      const b = bname === undefined ? undefined : await catalog.array(bname);
      if (b !== undefined) return edgesFromBounds(dim, await readWhole(store, b, signal), array.shape[d] as number, b.dtype);
      return edgesFromCentres(dim, await readWhole(store, c, signal), c.dtype);
    }),
  );
  const angular = isAngular(array.dims[xDim] as string, coords[xDim]?.attrs ?? {});
  const crs = await crsOf(catalog, array, angular);
  const dims = await Promise.all(
    array.dims.flatMap((dim, index) =>
      index === xDim || index === yDim
        ? []
        : [
            (async () => {
              const c = coords[index];
              const values = c ? await readWhole(store, c, signal) : [...Array(array.shape[index]).keys()];
              const time = c ? timeAxis(dim, c.attrs['units'], c.attrs['calendar']) : null;
              return { name: dim, index, values, time };
            })(),
          ],
    ),
  );
  return {
    store,
    array,
    grid: gridOf(edges[0] as ReturnType<typeof edgesFromCentres>, edges[1] as ReturnType<typeof edgesFromCentres>),
    crs,
    yDim,
    xDim,
    dims,
    packing: packingOf(array.attrs, array.dtype, array.fill),
  };
}

/** A group of steps read together: the chunks (along the other dimensions) they lie in, and each step's place in one. */
export interface StepGroup {
  /** Per plane: chunk coordinates along each dimension (0 along the spatial ones). */
  planes: number[][];
  /** Per band (step): its plane and its index inside that chunk along each dimension. */
  bands: { plane: number; at: number[] }[];
}

/** The block size's codec stand-in: the fold reads only the block's width and height of it. */
function blockCodec(width: number, height: number): TileCodec {
  return {
    compression: 0,
    predictor: 1,
    planarConfiguration: 2,
    samplesPerPixel: 1,
    bitsPerSample: [8],
    sampleFormat: [1],
    tileWidth: width,
    tileHeight: height,
    littleEndian: true,
    photometric: 1,
    fillOrder: 1,
    jpegTables: null,
    lercAddCompression: 0,
  };
}

/** The steps of `group` as the bands of a one-level raster over the cube's spatial chunks. */
export function stepsReader(cube: Cube, group: StepGroup): RasterReader {
  const { array, grid, yDim, xDim, packing } = cube;
  const bw = array.chunks[xDim] as number;
  const bh = array.chunks[yDim] as number;
  const level: RasterLevel = { index: 0, grid, blockWidth: bw, blockHeight: bh };
  const across = Math.ceil(grid.width / bw);
  const local = { ...array, path: '' };
  return {
    info: {
      levels: [level],
      bandCount: group.bands.length,
      crs: cube.crs,
      nodata: packing.nodata,
      nodata64: null,
      scaling: group.bands.map(() => ({ scale: packing.scale, offset: packing.offset })),
      dtype: array.dtype,
      cf: {
        also: packing.also,
        ...(packing.validMin === undefined ? {} : { validMin: packing.validMin }),
        ...(packing.validMax === undefined ? {} : { validMax: packing.validMax }),
      },
    },
    blockFormat(lvl, bands): BlockFormat {
      const picked = bands.map((b) => group.bands[b - 1] as StepGroup['bands'][number]);
      return {
        codec: blockCodec(bw, bh),
        maskCodec: null,
        levelWidth: lvl.grid.width,
        levelHeight: lvl.grid.height,
        bands: picked.map((s) => ({ plane: s.plane, sample: 0 })),
        fill: array.fill ?? 0,
        zarr: {
          zarrFormat: array.zarrFormat,
          docs: array.docs,
          shape: array.shape,
          chunks: array.chunks,
          yDim,
          xDim,
          planes: group.planes,
          at: picked.map((s) => s.at),
        },
      };
    },
    async readBlocks(_lvl, blocks, _bands, signal): Promise<EncodedBlock[]> {
      return Promise.all(
        blocks.map(async (index) => {
          const bx = index % across;
          const by = Math.floor(index / across);
          const keys = group.planes.map((p) => p.map((c, d) => (d === xDim ? bx : d === yDim ? by : c)));
          const planes = await Promise.all(
            keys.map(async (coords) => {
              const b = await cube.store.get(chunkKey(array, coords), signal);
              if (b === undefined) return null;
              return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer
                ? b.buffer
                : (b.slice().buffer as ArrayBuffer);
            }),
          );
          return {
            index,
            col0: bx * bw,
            row0: by * bh,
            planes,
            cached: planes.map(() => null),
            mask: null,
            keys: planes.map(() => null),
            chunkKeys: keys.map((c) => chunkKey(local, c)),
          };
        }),
      );
    },
  };
}
