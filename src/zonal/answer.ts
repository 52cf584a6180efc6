/**
 * The one entry point of the use cases: a checked question and its zones in, each zone's outcome out, in
 * input order, as soon as it is answered. The routes, the command line and a job runner all call it; what
 * they do with the outcomes (a response, a file, a stored result) is theirs. A problem of the request
 * (the source, a statistic, a limit of the request) throws, before the first outcome when it can.
 */
import { rasterZones, type RasterDeps } from './raster.ts';
import { vectorZones } from './vector.ts';
import { rasterZoneOutcomes } from './raster-zones.ts';
import { rasterAsset, vectorAsset } from './stac.ts';
import { stacSearchOutcomes, type StacSearchDeps } from './stac-search.ts';
import { outcomesOf } from './zones.ts';
import { cubeOutcomes } from './cube.ts';
import type { Answered, Question, Zone } from './model.ts';

/** Everything a question may need: the configuration, the worker pool, a source opener, a JSON client, the caller's abort signal. */
export type AnswerDeps = StacSearchDeps;

export async function* answer(question: Question, zones: readonly Zone[], deps: AnswerDeps): AsyncGenerator<Answered> {
  switch (question.kind) {
    case 'raster':
      // Zones given as a raster: the zones are its values, found by the use case.
      if (question.zones) yield* rasterZoneOutcomes(question, deps);
      else yield* outcomesOf(zones, rasterZones(question, zones, deps));
      return;
    case 'raster-stac': {
      const { query, bandDefaults } = await rasterAsset(question, deps);
      const assetDeps = { ...deps, bandDefaults } satisfies RasterDeps;
      if (query.zones) yield* rasterZoneOutcomes(query, assetDeps);
      else yield* outcomesOf(zones, rasterZones(query, zones, assetDeps));
      return;
    }
    case 'raster-stac-search':
      yield* stacSearchOutcomes(question, zones, deps);
      return;
    case 'vector':
      yield* outcomesOf(zones, vectorZones(question, zones, deps));
      return;
    case 'cube': {
      const { kind: _kind, ...query } = question;
      yield* cubeOutcomes(query, zones, deps);
      return;
    }
    case 'vector-stac': {
      const query = await vectorAsset(question, deps);
      yield* outcomesOf(zones, vectorZones(query, zones, { ...deps, knownParquet: true }));
      return;
    }
  }
}
