/** What the routes are given by buildApp: the config and the I/O edges they pass to the use cases. */
import type { Config } from '../config.ts';
import type { openSource } from '../source/resolve.ts';
import type { FoldRunner } from '../workers/pool.ts';
import type { Jobs } from '../jobs/jobs.ts';

export interface AppDeps {
  config: Config;
  openSource: typeof openSource;
  runner: FoldRunner;
  /** Jobs (OGC API – Processes): in this process or on Redis (jobs/engine.ts). */
  jobs: Jobs;
  /** Set from the first moment of a drain (SIGTERM): readiness fails at once. */
  lifecycle: { draining: boolean };
}
