/**
 * V8 CPU profiles (`node --cpu-prof`, one file per thread: the service's workers inherit the flag) summed
 * into the phases of a raster request: where each thread's time went. Used by bench/stac/profile.ts for
 * the per-tile breakdown in bench/stac/README.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The phase a function's own time counts for (by its name and file), first match wins. */
const PHASES: [string, RegExp][] = [
  ['idle', /^\((idle)\)|atomicsWaitLoop|^epoll_wait/],
  ['gc', /^\(garbage collector\)/],
  [
    'inflate',
    /^(inflate|inflateSync|zlibBufferSync|processChunkSync|zlibOnError|decodeLzw|decodePackBits|decodeZstd) |codecs\/(deflate|lzw|packbits|zstd)\.ts|node:zlib/,
  ],
  ['predictor and byte order', /^(undoHorizontal|undoFloatingPoint|sum8|sum16|sum16x2|sum32|sum64|swapInPlace|toSamples|typed|aligned) /],
  ['coverage', /coverage\/|^(centerCoverage|fractionalCoverage|allTouchedCoverage|pointCoverage|sharedCoverage|coverageFor) /],
  [
    'fold',
    /^(foldZone|foldProgram|foldTiles|classLookup|sampleAt|mergePartials|pixelAreas) |stats\/|raster\/pixel-area\.ts|zonal\/fold\.ts|raster\/decode\.ts/,
  ],
  [
    'messaging',
    /^(postTask|postMessage|receiveMessageOnPort|_distributeTask|runTask|structuredClone|deserialize|serialize) |worker_pool|piscina|worker\/io|worker_threads/,
  ],
  [
    'reads (HTTP, sockets, buffers)',
    /node:_http|node:net|stream_base|writeLatin1String|socketOnData|source\/|streams\/|createUnsafeBuffer|node:internal\/buffer|readBlocks|readTiles/,
  ],
  ['planning and geometry', /geometry\/|raster\/plan\.ts|raster\/window\.ts|proj4|zonal\/raster\.ts|stac/],
  ['start-up (modules, compile)', /cjs\/loader|esm\/|bootstrap|compileSourceTextModule|wrapSafe|register-|lexer|tsx/],
];

export interface ThreadSummary {
  file: string;
  /** Milliseconds sampled, and per phase. */
  totalMs: number;
  phases: Map<string, number>;
}

function phaseOf(name: string): string {
  for (const [phase, re] of PHASES) if (re.test(name)) return phase;
  return 'other';
}

/** Each profile of `dir` (one per thread, in the order written: the main thread first) summed by phase. */
export function summarise(dir: string): ThreadSummary[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
    .map((file) => {
      const p = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
      const byId = new Map(p.nodes.map((n) => [n.id, n]));
      const phases = new Map<string, number>();
      let totalMs = 0;
      p.samples.forEach((id, i) => {
        const ms = (p.timeDeltas[i] ?? 0) / 1000;
        const n = byId.get(id);
        const name = n ? `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url}` : '(unknown)';
        const phase = phaseOf(name);
        phases.set(phase, (phases.get(phase) ?? 0) + ms);
        totalMs += ms;
      });
      return { file, totalMs, phases };
    });
}
