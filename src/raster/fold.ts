/**
 * The one place where a Coverage meets pixel values (docs/architecture.md): decode each block of a task once
 * (raster/decode.ts), select every zone's pixels in it, apply validity and scale/offset, and return one
 * partial accumulator per zone and block (exactextract's mergeable partials). Runs in a worker thread
 * (src/workers/fold-worker.ts) or inline; its input and output are plain cloneable data (fold-types.ts),
 * merged on the main thread by fold-merge.ts.
 */
import { decodeBlock, recycle, sample64At, sampleAt, spanOf, type DecodedPlane, type DecodedBlock, type EncodedBlock } from './decode.ts';
import { classLookup, lookupBlocks, type Lookup, type RowLookup } from './fold-lookup.ts';
import { intersectWindows, type PixelWindow } from '../geometry/grid.ts';
import { pixelAreaRows, type PixelAreaRows } from './pixel-area.ts';
import { CellWalk, cellsOf } from './fold-cells.ts';
import { cfInvalid, foldPlain } from './fold-plain.ts';
import type { Coverage } from '../coverage/coverage.ts';
import { compileExpression } from '../stats/expression.ts';
import { sharedCoverage } from './fold-coverage.ts';
import { zoneBlock } from './fold-zones.ts';
import { channelsFor, weightsLookup, type ChannelSet } from './fold-channels.ts';
import { mosaicOf } from './fold-mosaic.ts';
import type { BandPartial, PackedBands, FoldBand, FoldPartial, FoldProgram, FoldResult, FoldTask, FoldTimes, FoldZone } from './fold-types.ts';

export type { FoldBand, FoldPartial, FoldProgram, FoldResult, FoldTask, FoldZone } from './fold-types.ts';
export { mergeBand, mergePartials } from './fold-merge.ts';

const now = (): number => performance.now();

/** A band's (or output's) partial: its accumulators' state, data area, a zone raster's zone area, each class's area. */
function partialOf(set: ChannelSet, dataAreaM2: number, classes: Map<number, number> | null, zoneAreaM2: number | null): BandPartial {
  const partial: BandPartial = { acc: set.acc.snapshot(), dataAreaM2 };
  if (zoneAreaM2 !== null) partial.zoneAreaM2 = zoneAreaM2;
  if (set.more !== null) partial.more = set.more.map((m) => m.snapshot());
  if (set.missing.some((n) => n > 0)) partial.missing = set.missing;
  if (classes) partial.classAreas = { values: [...classes.keys()], areas: [...classes.values()] };
  return partial;
}

/** One zone's pixels of one decoded block into one accumulator per band. */
function foldZone(
  task: FoldTask,
  zone: FoldZone,
  block: DecodedBlock,
  cov: Coverage,
  weightsRow: RowLookup | null,
  shared: PixelAreaRows | null,
): BandPartial[] | PackedBands {
  const cw = cov.window;
  const areas = zone.selection.kind === 'point' ? null : (shared ?? pixelAreaRows(task.area, cw));
  const { valid, maskStride } = block;
  const { col0, row0 } = block.window;
  const fill = task.format.fill;
  const ch = channelsFor(task, zone, cov, weightsRow);
  const ofZones = zone.selection.kind === 'zone';
  const list = cellsOf(cov, row0, areas);
  // Several bands (a cube's steps) on the plain path; one band keeps the loop below (no accumulator made for nothing).
  const packed = ch.plain && !ofZones && !task.categorical && task.bands.length > 1 ? foldPlain(task, ch.accumulators().acc, block, cov, list) : null;
  if (packed !== null) return packed;
  return task.bands.map((band, b) => {
    const { nodata, nodata64 = null, scale, offset } = band;
    const invalid = cfInvalid(band);
    const set = ch.accumulators();
    const classes = task.categorical ? new Map<number, number>() : null;
    const samples = block.bands[b];
    const arr = samples?.values ?? undefined;
    const big = samples?.isBig ?? false;
    const rowStride = samples?.rowStride ?? 0;
    const step = samples?.step ?? 1;
    const first = samples?.offset ?? 0;
    let area = 0;
    let zoneArea = 0;
    const { n, w: ws, r: rs, c: cs, tr: trs, area: as } = list;
    const hasArea = as !== null;
    for (let k = 0; k < n; k++) {
      const w = ws[k] as number;
      const r = rs[k] as number;
      const c = cs[k] as number;
      const tr = trs[k] as number;
      const cellArea = as === null ? 0 : (as[k] as number);
      if (ofZones && hasArea) zoneArea += w * cellArea;
      const tc = cw.col0 + c - col0;
      let raw: number;
      if (valid && valid[tr * maskStride + tc] === 0) raw = Number.NaN;
      else {
        const i = tr * rowStride + tc * step + first;
        if (arr === undefined) raw = nodata64 === null ? fill : Number.NaN;
        else if (big) {
          // Compared before the conversion: 2⁶⁴ − 1 and a nodata of 2⁶⁴ − 2 are one float64.
          const v = arr[i] as bigint;
          raw = v === nodata64 ? Number.NaN : Number(v);
        } else raw = arr[i] as number;
      }
      const value = raw !== raw || raw === nodata || (invalid !== null && invalid(raw)) ? Number.NaN : raw * scale + offset;
      ch.add(set, w, value, r, c);
      if (value !== value) continue;
      if (hasArea) {
        const a = w * cellArea;
        area += a;
        if (classes) classes.set(value, (classes.get(value) ?? 0) + a);
      } else if (classes && !classes.has(value)) classes.set(value, 0);
    }
    return partialOf(set, area, classes, ofZones ? zoneArea : null);
  });
}

/** Every input band's value at a pixel of the block (scaled), and whether it is valid (nodata, NaN, the mask). */
function readInputs(
  bands: readonly FoldBand[],
  sources: readonly { raster: number; band: number }[],
  rasters: readonly DecodedBlock[],
  fills: readonly number[],
  tr: number,
  tc: number,
  fileValid: boolean,
  inputs: Float64Array,
  ok: Uint8Array,
  invalids: readonly (((raw: number) => boolean) | null)[],
): void {
  for (let b = 0; b < bands.length; b++) {
    const band = bands[b] as FoldBand;
    const src = sources[b] as { raster: number; band: number };
    const from = rasters[src.raster] as DecodedBlock;
    const raw = band.nodata64 == null ? sampleAt(from, src.band, tr, tc, fills[src.raster] as number) : sample64At(from, src.band, tr, tc, band.nodata64);
    const invalid = invalids[b] ?? null;
    const good =
      (src.raster === 0 ? fileValid : !from.valid || from.valid[tr * from.maskStride + tc] !== 0) &&
      raw === raw &&
      raw !== band.nodata &&
      !(invalid !== null && invalid(raw));
    ok[b] = good ? 1 : 0;
    inputs[b] = good ? raw * band.scale + band.offset : Number.NaN;
  }
}

/** The expression over one group's bands (NaN when any of them is invalid). */
function evalGroup(evaluate: (x: Float64Array) => number, group: readonly number[], inputs: Float64Array, ok: Uint8Array, sub: Float64Array): number {
  for (let i = 0; i < group.length; i++) {
    const b = group[i] as number;
    if (ok[b] === 0) return Number.NaN;
    sub[i] = inputs[b] as number;
  }
  return evaluate(sub);
}

/**
 * One zone's pixels of one block through a program: masked pixels (by class) counted apart, then each
 * output is a band's value or the expression over every input band; a pixel invalid in any input (nodata,
 * NaN, the file's mask) or whose expression is not finite (a division by zero) counts as nodata.
 */
function foldProgram(
  task: FoldTask,
  program: FoldProgram,
  zone: FoldZone,
  rasters: DecodedBlock[],
  classAt: Lookup | null,
  cov: Coverage,
  weightsRow: RowLookup | null,
  shared: PixelAreaRows | null,
): BandPartial[] {
  const cw = cov.window;
  const areas = zone.selection.kind === 'point' ? null : (shared ?? pixelAreaRows(task.area, cw));
  const block = rasters[0] as DecodedBlock;
  const { valid, maskStride } = block;
  const { col0, row0 } = block.window;
  const fill = task.format.fill;
  const fills = [fill, ...(task.extras ?? []).map((e) => e.format.fill)];
  const sources = program.sources ?? task.bands.map((_, b) => ({ raster: 0, band: b }));
  const evaluate = program.expression ? compileExpression(program.expression.text, program.expression.names) : null;
  const groups = evaluate ? (program.groups ?? null) : null;
  const outputs = groups ? groups.map((_, o) => o) : evaluate ? [-1] : program.outputs;
  const sub = new Float64Array(program.expression?.names.length ?? 0);
  const ch = channelsFor(task, zone, cov, weightsRow);
  const sets = outputs.map(() => ch.accumulators());
  const classes = outputs.map(() => (task.categorical ? new Map<number, number>() : null));
  const dataArea = outputs.map(() => 0);
  const ofZones = zone.selection.kind === 'zone';
  let zoneArea = 0;
  let masked = 0;
  const include = program.mask?.include ? new Set(program.mask.include) : null;
  const exclude = program.mask?.exclude ? new Set(program.mask.exclude) : null;
  const inputs = new Float64Array(task.bands.length);
  const ok = new Uint8Array(task.bands.length);
  const invalids = task.bands.map(cfInvalid);
  const walk = new CellWalk(cov, row0, areas);
  while (walk.next()) {
    const { w, r, c, tr, areaRow } = walk;
    if (ofZones && areaRow) zoneArea += w * (areaRow[c] as number);
    const tc = cw.col0 + c - col0;
    const fileValid = !valid || valid[tr * maskStride + tc] !== 0;
    if (program.mask) {
      const m = program.mask.band;
      const cls = m < 0 ? (classAt as (col: number, row: number) => number)(cw.col0 + c, cw.row0 + r) : sampleAt(block, m, tr, tc, fill);
      const clsValid = (m < 0 || fileValid) && cls === cls && cls !== (m < 0 ? task.classes?.nodata : (task.bands[m] as FoldBand).nodata);
      if ((include && !(clsValid && include.has(cls))) || (exclude && clsValid && exclude.has(cls))) {
        masked += w;
        continue;
      }
    }
    readInputs(task.bands, sources, rasters, fills, tr, tc, fileValid, inputs, ok, invalids);
    const a = areaRow ? w * (areaRow[c] as number) : 0;
    for (let o = 0; o < outputs.length; o++) {
      const b = outputs[o] as number;
      const v = groups
        ? evalGroup(evaluate as (x: Float64Array) => number, groups[o] as number[], inputs, ok, sub)
        : evaluate
          ? ok.includes(0)
            ? Number.NaN
            : evaluate(inputs)
          : ok[b]
            ? (inputs[b] as number)
            : Number.NaN;
      const value = Number.isFinite(v) ? v : Number.NaN;
      ch.add(sets[o] as ChannelSet, w, value, r, c);
      if (value !== value) continue;
      dataArea[o] = (dataArea[o] as number) + a;
      const cl = classes[o];
      if (cl) cl.set(value, (cl.get(value) ?? 0) + a);
    }
  }
  return sets.map((set, o) => ({ ...partialOf(set, dataArea[o] as number, classes[o] ?? null, ofZones ? zoneArea : null), masked }));
}

/** Decodes each block of a task once and folds every zone that needs it: one partial per zone and block. */
export async function foldTiles(task: FoldTask): Promise<FoldResult> {
  const start = now();
  const times: FoldTimes = { inflate: 0, samples: 0, bytes: 0, whole: 0, coverage: 0, fold: 0, total: 0, planes: 0, coverages: 0, reused: 0 };
  const partials: FoldPartial[] = [];
  const decoded: { key: string; plane: DecodedPlane }[] = [];
  const { levelWidth, levelHeight } = task.format;
  const tw = task.format.codec.tileWidth;
  // Class and weights blocks decoded on first use, shared by every block of the task.
  const cs = task.classes;
  const ws = task.weights;
  const classOf = cs ? lookupBlocks(cs, times) : null;
  const weightOf = ws ? lookupBlocks(ws, times) : null;
  const zs = task.zoneRaster;
  const zonesOf = zs ? lookupBlocks(zs, times) : null;
  const mosaic = task.mosaic ? mosaicOf(task.mosaic, task.area.grid, [task.format.fill, ...(task.extras ?? []).map((e) => e.format.fill)], times) : null;
  for (let k = 0; k < task.blocks.length; k++) {
    const encoded = task.blocks[k] as EncodedBlock;
    let block: DecodedBlock | null = null;
    let rasters: DecodedBlock[] = [];
    let classAt: Lookup | null = null;
    let weightsRow: RowLookup | null = null;
    const blockWin: PixelWindow = {
      col0: encoded.col0,
      row0: encoded.row0,
      width: Math.min(tw, levelWidth - encoded.col0),
      height: Math.min(task.format.codec.tileHeight, levelHeight - encoded.row0),
    };
    const need = task.needs?.[k];
    // A block kept for the decoded-tile cache is decoded from its first row, so later requests reuse it.
    const keep = task.keep[k] === true;
    const span = need ? spanOf(need, encoded.col0, encoded.row0, tw, keep) : undefined;
    // Zones of a zones raster: the zone under every part of the block's cells, once for all of them.
    const zb = zs && zonesOf ? zoneBlock(zs, task.area, need ?? blockWin, zonesOf.get) : null;
    for (const z of task.touches[k] ?? []) {
      const zone = task.zones[z] as FoldZone;
      const win = intersectWindows(blockWin, zone.window);
      if (!win) continue;
      const t0 = now();
      const sel = zone.selection;
      let cov;
      if (sel.kind === 'zone' && zb) cov = await zb.coverage(sel.value, sel.rule);
      else cov = sharedCoverage(zone, win, levelWidth, levelHeight, times);
      times.coverage += now() - t0;
      if (!cov) continue;
      // Decoded on first use only: a block no zone selects a pixel of is never decompressed.
      if (block === null) {
        try {
          block = await decodeBlock(task.format, encoded, keep, span, times);
          decoded.push(...block.fresh);
          const extras = task.extras ?? [];
          rasters = [block, ...(await Promise.all(extras.map((e) => decodeBlock(e.format, e.blocks[k] as EncodedBlock, false, span, times))))];
          times.planes += encoded.planes.filter((p) => p !== null).length + extras.length;
          // A mosaic's block: the first valid value of its Items under each pixel (its classes too).
          if (mosaic) [block, rasters, classAt] = await mosaic.apply(rasters, need ?? block.window);
          if (cs && classOf) classAt = await classLookup(cs, task.area.grid, need ?? block.window, classOf.get);
          if (ws && weightOf) weightsRow = await weightsLookup(ws, task.area.grid, need ?? block.window, weightOf.get);
        } catch (e) {
          times.total = now() - start;
          return { partials: [], decoded: [], times, failure: e instanceof Error ? e.message : String(e) };
        }
      }
      const t1 = now();
      partials.push({
        zone: z,
        block: k,
        bands: task.program
          ? foldProgram(task, task.program, zone, rasters, classAt, cov, weightsRow, cov.cells ? (zb?.areas ?? null) : null)
          : foldZone(task, zone, block, cov, weightsRow, cov.cells ? (zb?.areas ?? null) : null),
      });
      times.fold += now() - t1;
    }
    // Every zone of the block is folded: its planes' buffers serve the next blocks.
    for (const r of rasters) recycle(r);
  }
  for (const c of [...(classOf?.all.values() ?? []), ...(weightOf?.all.values() ?? []), ...(zonesOf?.all.values() ?? [])]) recycle(await c);
  await mosaic?.close();
  times.total = now() - start;
  return { partials, decoded, times };
}
