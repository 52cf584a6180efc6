/**
 * In process: the service's one entry point (zonal/answer.ts) answers all the zones, with the service's
 * configuration from the environment, its worker pool, and its source opener; a local source's folder is
 * the only data root, so the service's path checks still apply.
 */
import { realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../config.ts';
import { jsonClient, openSource } from '../source/resolve.ts';
import type { ReadStats } from '../source/source.ts';
import { createFoldRunner } from '../workers/pool.ts';
import { answer } from '../zonal/answer.ts';
import { eachRow } from '../zonal/rows.ts';
import type { Question, ZoneInput, ZoneOutcome } from '../zonal/model.ts';
import { checkZones } from '../schemas/zones.ts';
import { CliError } from './errors.ts';
import type { Job } from './job.ts';

/** The service's configuration from the environment, with the source file's folder as the data root. */
async function cliConfig(url: string, env: Record<string, string | undefined> = process.env): Promise<Config> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (e) {
    throw new CliError(`The environment is not usable: ${(e as Error).message}.`);
  }
  if (url.startsWith('file:')) {
    let path: string;
    try {
      path = fileURLToPath(url);
    } catch {
      throw new CliError(`The source ${url} is not a valid file URL.`);
    }
    // The real folder (a symlinked file is checked where it really lives); a missing file is reported by openSource.
    const folder = await realpath(path).then(dirname, () => dirname(path));
    config = { ...config, dataRoots: [folder] };
  }
  return config;
}

export async function* localOutcomes(job: Job, zones: readonly ZoneInput[], options: { signal: AbortSignal }): AsyncGenerator<ZoneOutcome> {
  const config = await cliConfig(job.body.url);
  const runner = createFoldRunner(config.workers);
  try {
    const stats: ReadStats = { requests: 0, bytes: 0 };
    const deps = {
      config,
      runner,
      signal: options.signal,
      openSource: (url: string) => openSource(url, config, { stats, signal: options.signal }),
      json: jsonClient(config, stats),
    };
    const { radius, ...rest } = job.body;
    // The schema checked the body (job.ts): it is the question of its kind.
    const question = { kind: job.kind, ...rest } as Question;
    yield* eachRow(answer(question, checkZones(zones, radius), deps));
  } finally {
    await runner.close();
  }
}
