/**
 * Process entry: load config, build the app, listen, drain on SIGTERM/SIGINT. Drain: readiness fails at
 * once (/health/ready 503); after ZONAL_DRAIN_DELAY_MS (SIGTERM only: the load balancer stops sending)
 * new connections stop and in-flight requests finish, each keep-alive socket closing after its current
 * response; after ZONAL_DRAIN_GRACE_MS more the process exits anyway. Exit status 0.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from './config.ts';
import { buildApp } from './app.ts';
import { foldBackend } from './raster/fold-native.ts';

const config = loadConfig();
const app = await buildApp(config);
await app.listen({ port: config.port, host: config.host });
// The effective configuration, once (it holds no secret: S3 credentials stay in the SDK's environment),
// the inflater the workers use (libdeflate, or node:zlib and why) and their fold (native, or JavaScript and why).
app.log.info({ config, inflate: await app.inflate, fold: foldBackend() }, 'configuration');

let draining = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (draining) return;
    draining = true;
    const delayMs = signal === 'SIGTERM' ? config.drainDelayMs : 0;
    app.log.info({ signal, delayMs, graceMs: config.drainGraceMs }, 'draining: not ready from now on');
    app.startDrain();
    void (async () => {
      await sleep(delayMs);
      setTimeout(() => {
        app.log.warn('drain grace over: exiting with requests still in flight');
        process.exit(0);
      }, config.drainGraceMs).unref();
      try {
        await app.close();
        app.log.info('drained');
      } finally {
        process.exit(0);
      }
    })();
  });
}
