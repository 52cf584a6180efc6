/**
 * Service child of the vector benchmark: buildApp from src/app.ts with the default configuration
 * (loadConfig of this process's environment, e.g. ZONAL_CACHE_BYTES) plus loopback sources allowed,
 * listening on 127.0.0.1:0. Queried over HTTP by bench.ts with fetch, like any client.
 *
 * IPC (child_process.fork): sends {port} when listening; answers {cmd:'mem'} with this process's peak
 * RSS (VmHWM, bytes) and current RSS; exits on {cmd:'exit'}.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';

if (process.send === undefined) throw new Error('start with child_process.fork (IPC)');

const config = { ...loadConfig(process.env), allowPrivateNetworks: true, host: '127.0.0.1', port: 0 };
const app = await buildApp(config, { logger: { level: 'warn' } });
await app.listen({ host: '127.0.0.1', port: 0 });
const port = (app.server.address() as AddressInfo).port;

function vmHwm(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'mem') process.send!({ peakRss: vmHwm(), rss: process.memoryUsage().rss });
  else if (m.cmd === 'exit') void app.close().then(() => process.exit(0));
});
process.send({ port, cacheBytes: config.cacheBytes });
