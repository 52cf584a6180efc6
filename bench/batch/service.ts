/**
 * The service as its own process for the batch benchmark: the real app (buildApp from src/app.ts) configured
 * from the environment exactly like `npm start` (src/config.ts: ZONAL_WORKERS, ZONAL_DATA_ROOTS, …),
 * listening on 127.0.0.1 port 0. Like bench/raster/service.ts, except that the log (level LOG_LEVEL,
 * default warn) goes to stderr, so that the driver can report why a request or a zone failed.
 * Prints {"port": N, "pid": P} on stdout once listening; stops on SIGTERM or when stdin closes.
 */
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';

const config = { ...loadConfig(process.env), port: 0, host: '127.0.0.1' };
const app = await buildApp(config, { logger: { level: process.env['LOG_LEVEL'] ?? 'warn', stream: process.stderr } });
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
