/** What the routes are given by buildApp: the config and the two I/O edges they pass to the use cases. */
import type { Config } from '../config.ts';
import type { openSource } from '../source/resolve.ts';
import type { FoldRunner } from '../workers/pool.ts';

export interface AppDeps {
  config: Config;
  openSource: typeof openSource;
  runner: FoldRunner;
  /** Set from the first moment of a drain (SIGTERM): readiness fails at once. */
  lifecycle: { draining: boolean };
}
