/**
 * Data cubes (issue 25): a Zarr store's (or kerchunk references') variable per zone and step. The steps
 * `sel` keeps are grouped by the chunks that hold them (a chunk often spans many time steps); each group is
 * one unit of the zones × units engine, answered by the raster use case with the group's steps as bands
 * (cube/reader.ts stepsReader), so each chunk is read and decoded once, in a worker, for all its zones and
 * steps; zones share their plan across groups (one grid) and the workers their coverage. Rows come out zone
 * by zone in input order, each zone's steps in axis order (the variable's first dimension outermost).
 */
import { ZonalError } from '../errors.ts';
import type { Aoi } from '../geometry/types.ts';
import { sameGrid } from '../geometry/grid.ts';
import { openCubeStore } from '../cube/store.ts';
import { openCatalog, openCube, stepsReader, type Cube, type StepGroup } from '../cube/reader.ts';
import type { CubeStore } from '../cube/store.ts';
import { expressionInputs } from '../stats/expression.ts';
import { coordinateOf, selectDim, type Sel } from '../cube/select.ts';
import { rasterZones, type PlanCache, type RasterDeps } from './raster.ts';
import { answerZones, type Planned, type Work } from './engine.ts';
import { Slots } from './slots.ts';
import { parseZones, zoneError } from './zones.ts';
import type { Answered, CubeQuery, RasterQuery, Zone } from './model.ts';
import { rowsOfTable, writeBand, writeGroup, type ZoneTable } from './cube-rows.ts';
import type { ResultContext, StatsAccumulator } from '../stats/accumulator.ts';

/** Groups answered at once (their chunk reads overlap other groups' decoding), sharing the task slots. */
const GROUPS_IN_FLIGHT = 3;
const TASK_SLOTS_PER_WORKER = 4;
/**
 * A group takes chunks along the other dimensions until it holds GROUP_ROWS zone × step rows (at most
 * GROUP_STEPS steps; one-step chunks, as NetCDF often has, go together; a chunk's steps at least). Each group
 * costs the main thread a pass of the engine and a merge a zone, and holds its zones' partials until it is
 * answered: 192 steps of 100 zones (8 days of hourly chunks of 24) answered the cube bench 15 % sooner than 48;
 * larger groups were no faster, and more zones take fewer steps so that the peak stays put.
 */
const GROUP_ROWS = 19_200;
const GROUP_STEPS = 192;
/** Most chunks of one spatial block a group reads together. */
const GROUP_PLANES = 16;

/** One step: its index along each non-spatial dimension of the cube (in the cube's `dims` order). */
type Step = number[];

/** The request's own checks, before any byte: what a cube does not take. */
function checkCube(q: CubeQuery): void {
  const extra = q as CubeQuery & Record<string, unknown>;
  for (const key of ['bands', 'weights', 'zones', 'mask', 'approx_stats']) {
    if (extra[key] !== undefined) {
      throw new ZonalError('validation_failed', `"${key}" does not apply to a cube: name its "variable" and pick steps with "sel".`, {
        errors: [{ path: `/${key}`, message: 'not for cubes' }],
      });
    }
  }
}

/** exactextract's area weights take one cell width per grid (fold-weighting.ts rowAreas): not unequal longitudes. */
function checkRectilinear(cube: Cube, q: CubeQuery): void {
  if (cube.grid.xEdges === undefined) return;
  const asked = [q.coverage_weight, ...(q.stats ?? [])].find((s) => typeof s === 'string' && /area_(cartesian|spherical)/.test(s));
  if (asked !== undefined) {
    throw new ZonalError(
      'unsupported_grid',
      `"${cube.array.dims[cube.xDim]}" has cells of unequal widths (its bounds), and area coverage weights (${asked}) are computed here for equal widths only: ask with coverage_weight "fraction" or "none".`,
    );
  }
}

/** The steps `sel` keeps, in the variable's dimension order (the first outermost), and the dimensions iterated. */
function stepsOf(cube: Cube, q: CubeQuery): { steps: Step[]; iterated: number[] } {
  const sel = q.sel ?? {};
  const known = new Set(cube.dims.map((d) => d.name));
  for (const key of Object.keys(sel)) {
    if (!known.has(key)) {
      const spatial = cube.array.dims.includes(key);
      throw new ZonalError(
        'validation_failed',
        spatial
          ? `"${key}" is a spatial axis of "${cube.array.path}": the zones pick its cells, not "sel".`
          : `"${cube.array.path}" has no dimension "${key}": its dimensions are ${cube.array.dims.join(', ')}.`,
        { errors: [{ path: `/sel/${key}`, message: 'no such dimension' }] },
      );
    }
  }
  const picked = cube.dims.map((d) => selectDim(d, sel[d.name] as Sel | undefined, q.sel_method ?? 'exact'));
  let steps: Step[] = [[]];
  for (const p of picked) steps = steps.flatMap((s) => p.indexes.map((i) => [...s, i]));
  return { steps, iterated: picked.flatMap((p, k) => (p.pinned ? [] : [k])) };
}

/** The steps grouped by the chunks holding them, consecutive chunks together up to `most` steps. */
function groupsOf(cube: Cube, steps: readonly Step[], most: number): { group: StepGroup; steps: number[] }[] {
  const { array, dims } = cube;
  const chunkOf = (s: Step): number[] =>
    array.shape.map((_, d) => {
      const k = dims.findIndex((dim) => dim.index === d);
      return k < 0 ? 0 : Math.floor((s[k] as number) / (array.chunks[d] as number));
    });
  const byChunk = new Map<string, { coords: number[]; steps: number[] }>();
  steps.forEach((s, i) => {
    const coords = chunkOf(s);
    const key = coords.join(',');
    const entry = byChunk.get(key);
    if (entry) entry.steps.push(i);
    else byChunk.set(key, { coords, steps: [i] });
  });
  const groups: { group: StepGroup; steps: number[] }[] = [];
  let current: { group: StepGroup; steps: number[] } | null = null;
  for (const { coords, steps: members } of byChunk.values()) {
    if (current === null || current.steps.length + members.length > most || current.group.planes.length >= GROUP_PLANES) {
      current = { group: { planes: [], bands: [] }, steps: [] };
      groups.push(current);
    }
    const plane = current.group.planes.length;
    current.group.planes.push(coords);
    for (const i of members) {
      const s = steps[i] as Step;
      const at = array.shape.map((_, d) => {
        const k = dims.findIndex((dim) => dim.index === d);
        return k < 0 ? 0 : (s[k] as number) - (coords[d] as number) * (array.chunks[d] as number);
      });
      current.group.bands.push({ plane, at });
      current.steps.push(i);
    }
  }
  return groups;
}

/** A group's result for a zone: its problem, or null (its rows went into the zone's table). */
type GroupAnswer = { error: unknown } | null;

/** Whether two variables lie on one grid, CRS, chunking and steps (an expression reads them chunk by chunk together). */
function sameLayout(a: Cube, b: Cube): boolean {
  const grid = sameGrid(a.grid, b.grid);
  const dims = a.array.dims.join() === b.array.dims.join() && a.array.shape.join() === b.array.shape.join() && a.array.chunks.join() === b.array.chunks.join();
  const steps = a.dims.every((d, k) => {
    const e = b.dims[k];
    return e !== undefined && d.values.length === e.values.length && Array.from(d.values).every((v, i) => v === e.values[i]);
  });
  return grid && dims && steps && a.crs.proj4 === b.crs.proj4;
}

/**
 * The variables a request reads: `variable`, or with an `expression` the variables it names (the store's
 * listed ones, or `variable` where the store cannot list), all on one grid and chunking; the first is the
 * grid whose steps are answered.
 */
async function openVariables(store: CubeStore, q: CubeQuery, signal?: AbortSignal): Promise<{ cubes: Cube[]; names: string[] }> {
  if (q.expression === undefined) {
    if (q.variable === undefined)
      throw new ZonalError('validation_failed', 'Name the "variable" to answer, or give an "expression" over variables.', {
        errors: [{ path: '/variable', message: 'required' }],
      });
    return { cubes: [await openCube(store, q.variable, signal)], names: [q.variable] };
  }
  const listed = (await openCatalog(store, signal)).names();
  const used = expressionInputs(q.expression, listed ?? (q.variable !== undefined ? [q.variable] : []));
  if (q.variable !== undefined && !used.includes(q.variable)) {
    throw new ZonalError(
      'validation_failed',
      `The expression does not use "${q.variable}": give the variable whose grid is answered among its inputs, or leave "variable" out.`,
    );
  }
  const names = q.variable === undefined ? used : [q.variable, ...used.filter((n) => n !== q.variable)];
  const cubes = await Promise.all(names.map((n) => openCube(store, n, signal)));
  const first = cubes[0] as Cube;
  cubes.forEach((c, k) => {
    if (!sameLayout(first, c)) {
      throw new ZonalError(
        'unsupported_grid',
        `The variables "${names[0]}" and "${names[k]}" do not share one grid, chunking and steps: an expression reads variables chunk by chunk together.`,
      );
    }
  });
  return { cubes, names };
}

export async function* cubeOutcomes(q: CubeQuery, zones: readonly Zone[], deps: RasterDeps): AsyncGenerator<Answered> {
  const { config, signal } = deps;
  checkCube(q);
  const { url, variable, sel: _sel, sel_method: _method, ...options } = q;
  const raster: RasterQuery = { ...options, url };
  const aois = parseZones(zones, config.maxVertices);
  const store = await openCubeStore(url, {
    openSource: deps.openSource,
    maxBytes: Math.min(config.maxSourceBytes, 256 * 1024 * 1024),
    ...(signal ? { signal } : {}),
  });
  const { cubes, names } = await openVariables(store, q, signal);
  const cube = cubes[0] as Cube;
  const key = q.expression === undefined ? (variable as string) : 'expression';
  checkRectilinear(cube, q);
  const { steps, iterated } = stepsOf(cube, q);
  const rows = zones.length * steps.length;
  if (rows > config.maxCubeRows) {
    throw new ZonalError(
      'too_many_rows',
      `The request asks for ${rows.toLocaleString('en')} zone × step rows, above the limit of ${config.maxCubeRows.toLocaleString('en')}: split the zones or narrow "sel".`,
      { limit_rows: config.maxCubeRows, rows },
    );
  }
  const groups = groupsOf(cube, steps, Math.max(1, Math.min(GROUP_STEPS, Math.floor(GROUP_ROWS / Math.max(1, zones.length)))));
  // Each step's coordinates, worked out once for every zone (the same object in each zone's row).
  const known: (Record<string, string | number> | undefined)[] = [];
  const coords = (i: number): Record<string, string | number> =>
    (known[i] ??= Object.fromEntries(
      iterated.map((k) => [cube.dims[k]?.name as string, coordinateOf(cube.dims[k] as Cube['dims'][number], (steps[i] as Step)[k] as number)]),
    ));
  const planned = aois.map((a): Planned<number> => ('error' in a ? a : { units: groups.map((_, g) => g) }));
  let z = 0;
  for await (const answer of answerZones(planned, cubeWork(raster, cubes, names, groups, zones, aois, deps))) {
    const zone = zones[z++] as Zone;
    if (answer !== undefined && 'error' in answer) {
      const error = zoneError(answer.error);
      if (error === null) throw answer.error;
      yield { zone, coords: null, error, cause: answer.error };
      continue;
    }
    const { names: statNames, values, extra, steps: order } = rowsOfTable(answer);
    yield { zone, rows: { count: order.length, key, names: statNames, values, extra, coords: (row) => coords(order[row] as number) } };
  }
}

/** The engine's cube work: a unit is a group of steps, answered by the raster use case for every zone. */
function cubeWork(
  raster: RasterQuery,
  cubes: readonly Cube[],
  names: readonly string[],
  groups: readonly { group: StepGroup; steps: number[] }[],
  zones: readonly Zone[],
  aois: readonly (Aoi | { error: unknown })[],
  deps: RasterDeps,
): Work<number, GroupAnswer, ZoneTable | undefined> {
  const plans: PlanCache = new Map();
  const slots = new Slots(TASK_SLOTS_PER_WORKER * Math.max(1, deps.config.workers));
  // Each zone's rows, written as its groups come in (every step lies in one group).
  const tables: (ZoneTable | undefined)[] = [];
  const total = groups.reduce((n, g) => n + g.steps.length, 0);
  return {
    id: (g) => g,
    compare: (a, b) => a - b,
    inFlight: GROUPS_IN_FLIGHT,
    run: async ([unit]) => {
      const { key: g, zones: members } = unit as { key: number; zones: number[] };
      const { group } = groups[g] as (typeof groups)[number];
      const { steps } = groups[g] as (typeof groups)[number];
      const sources =
        raster.expression === undefined
          ? { reader: stepsReader(cubes[0] as Cube, group) }
          : { variables: cubes.map((c, v) => ({ name: names[v] as string, reader: stepsReader(c, group) })) };
      const options = { sources, keys: members.map(String), aois: members.map((m) => aois[m] as Aoi) };
      const bands = raster.expression === undefined ? { bands: group.bands.map((_, b) => b + 1) } : {};
      const results: { zone: number; key: number; result: GroupAnswer }[] = [];
      // Plain answers go straight into the tables, band b being step steps[b]; the others come with the zone's answer.
      const sink = (z: number, b: number, acc: StatsAccumulator, aoiAreaM2: number, dataAreaM2: number, context: ResultContext): void => {
        const zone = members[z] as number;
        tables[zone] = writeBand(tables[zone], steps[b] as number, total, acc, aoiAreaM2, dataAreaM2, context);
      };
      let k = 0;
      for await (const a of rasterZones(
        { ...raster, ...bands },
        members.map((m) => zones[m] as Zone),
        { ...deps, plans, slots, areaLimit: false, sink },
        options,
      )) {
        const zone = members[k++] as number;
        if (!('error' in a)) tables[zone] = writeGroup(tables[zone], a.statistics, steps, total);
        results.push({ zone, key: g, result: 'error' in a ? a : null });
      }
      return results;
    },
    answer: (z, results) => {
      for (const r of results) if (r !== null) throw r.error;
      const table = tables[z];
      tables[z] = undefined;
      return table;
    },
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
}
