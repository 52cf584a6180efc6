/**
 * The service as its own process for the benchmarks (batch, raster, stac): the real app (buildApp from
 * src/app.ts) configured from the environment exactly like `npm start` (src/config.ts: ZONAL_WORKERS,
 * ZONAL_CACHE_BYTES, ZONAL_DATA_ROOTS, …), listening on 127.0.0.1 port 0. With LOG_LEVEL set, its log (that
 * level) goes to stderr, so that a driver can report why a request or a zone failed; without it, no log.
 * Prints {"port": N, "pid": P} on stdout once listening; stops on SIGTERM or when stdin closes.
 *
 * One process per measured group, so that its peak RSS (the driver reads VmHWM from /proc/<pid>/status,
 * which counts the worker threads too) is the group's own.
 */
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';

const level = process.env['LOG_LEVEL'];
const config = { ...loadConfig(process.env), port: 0, host: '127.0.0.1' };
const app = await buildApp(config, { logger: level ? { level, stream: process.stderr } : false });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address !== null ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port, pid: process.pid })}\n`);

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
