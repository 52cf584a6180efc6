/**
 * Where the outcomes go, in one of the service's formats (formats/): CSV by default, NDJSON and GeoJSON
 * (streamed zone by zone), GeoParquet (a file). Each zone's geometry is written back wherever the format
 * has a place for it.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { ZoneOutcome } from '../zonal/model.ts';
import { FORMATS, formatNamed, formatOfPath as formatOfOutput, type Format } from '../formats/index.ts';
import { CliError } from './errors.ts';

/** The format names --format takes. */
export const OUTPUT_FORMATS: readonly string[] = FORMATS.map((f) => f.name);

/** The format an output path's extension names, if any. */
export function formatOfPath(path: string): string | undefined {
  return formatOfOutput(path)?.name;
}

/** An output stream with backpressure; its first error (a full disk, a closed pipe) fails the next write. */
class Output {
  #error: Error | null = null;
  constructor(
    readonly stream: Writable,
    readonly owned: boolean,
    readonly name: string,
  ) {
    stream.on('error', (e: Error) => {
      this.#error ??= e;
    });
  }

  #check(): void {
    const e = this.#error;
    if (!e) return;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') throw new CliError(`The output (${this.name}) was closed before every zone was written.`);
    throw new CliError(`The output could not be written to ${this.name} (${code ?? e.message}).`);
  }

  async write(piece: string | Uint8Array): Promise<void> {
    this.#check();
    if (!this.stream.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.stream.off('drain', done);
          this.stream.off('error', done);
          resolve();
        };
        this.stream.on('drain', done);
        this.stream.on('error', done);
      });
    }
    this.#check();
  }

  async close(): Promise<void> {
    this.#check();
    if (this.owned) {
      this.stream.end();
      await once(this.stream, 'close').catch(() => undefined);
    }
    this.#check();
  }
}

async function openFile(path: string | undefined, cwd: string): Promise<Output> {
  if (path === undefined) return new Output(process.stdout, false, 'stdout');
  const stream = createWriteStream(resolve(cwd, path));
  try {
    await once(stream, 'open');
  } catch (e) {
    throw new CliError(`The output file ${path} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
  }
  return new Output(stream, true, path);
}

/** The format named, checked against where it goes (a binary format needs a file), before any work. */
export function checkOutput(name: string, path: string | undefined): Format {
  const format = formatNamed(name) as Format;
  if (format.binary && path === undefined) {
    throw new CliError(`--format ${format.name} writes a file: name it with --output (for example --output zones.${format.extensions[0] ?? format.name}).`);
  }
  return format;
}

/** Writes the outcomes, as they come, to the file at `path` (stdout without one) in the format named. */
export async function writeOutcomes(
  name: string,
  path: string | undefined,
  outcomes: AsyncIterable<ZoneOutcome>,
  keyName: 'band' | 'column' | 'variable',
  cwd = process.cwd(),
): Promise<void> {
  const format = checkOutput(name, path);
  const out = await openFile(path, cwd);
  for await (const piece of format.write(outcomes, { keyName, includeGeometry: true })) await out.write(piece);
  await out.close();
}

/** Writes bytes already in the format named (a job's results as the service wrote them), as they come. */
export async function writeBytes(name: string, path: string | undefined, body: AsyncIterable<Uint8Array>, cwd = process.cwd()): Promise<void> {
  checkOutput(name, path);
  const out = await openFile(path, cwd);
  for await (const piece of body) await out.write(piece);
  await out.close();
}
