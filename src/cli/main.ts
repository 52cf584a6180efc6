/**
 * `zonal`: zonal statistics from the command line (commander, the only file importing it).
 *
 *   zonal raster <source> --zones zones.geojson [--stats count,mean] [--bands 1,2] [--pixels center] ...
 *   zonal vector <source.parquet> --zones zones.csv --columns a,b [--weighting area] ...
 *   zonal raster <source> --zones zones.geojson --server http://host:3000 --job   (one job of the service)
 *   zonal worker   (takes the tasks of jobs from Redis: ZONAL_REDIS_URL)
 *
 * The same engine as the service, in process, or the services given with --server (in chunks, or as one job
 * with --job). Exit codes: 0 every zone answered, 1 some zone had an error (all results still written), 2 a
 * usage or request error, 130 stopped by Ctrl-C. Messages go to stderr, without stack traces.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CliError, EXIT_USAGE, messageOf } from './errors.ts';
import type { Job, JobKind } from './job.ts';
import { formatOfPath, OUTPUT_FORMATS } from './output.ts';
import type { ZonesFormat } from '../inputs/zones-file.ts';

const EXIT_INTERRUPTED = 130;

interface CommonOptions {
  zones?: string;
  zonesHref?: string;
  zonesType?: string;
  job?: boolean;
  zonesFormat?: ZonesFormat;
  geometryColumn?: string;
  idColumn?: string;
  stats?: string[];
  radius?: number;
  format?: string;
  output?: string;
  concurrency: number;
  server: string[];
  chunk: number;
  retries: number;
  retryDelay: number;
  progress: boolean;
}

interface RasterOptions extends CommonOptions {
  bands?: number[];
  pixels?: string;
  approx?: boolean;
}

interface VectorOptions extends CommonOptions {
  columns: string[];
  weighting?: string;
  sourceGeometryColumn?: string;
}

function list(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new InvalidArgumentError('expected a comma-separated list.');
  return items;
}

function numbers(value: string): number[] {
  const items = list(value).map(Number);
  if (items.some((n) => !Number.isFinite(n))) throw new InvalidArgumentError('expected comma-separated numbers, for example 1,2.');
  return items;
}

function number(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('expected a number.');
  return n;
}

const count =
  (min: number) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected a whole number ≥ ${min}.`);
    return n;
  };

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The options both commands share. */
function withCommon(cmd: Command): Command {
  return cmd
    .option('-z, --zones <file>', 'the zones: GeoJSON FeatureCollection, GeoParquet, or CSV with a WKT or GeoJSON geometry column')
    .option('--zones-href <url>', 'with --job: a zones file the service reads itself (http(s)://, s3://, or file:// inside its data roots) instead of --zones')
    .option('--zones-type <media type>', 'with --zones-href: its media type (default: by --zones-format, else the service decides by name and content)')
    .addOption(
      new Option('--zones-format <format>', 'the zones file format (default: by extension, else by content)').choices(['geojson', 'geoparquet', 'csv']),
    )
    .option('--geometry-column <name>', 'geometry column of a CSV (default: geometry, else wkt) or GeoParquet (default: its primary column) zones file')
    .option('--id-column <name>', 'column giving each zone its id (CSV default: id when there is one)')
    .option('-s, --stats <list>', 'statistics, comma-separated (default: min,max,mean,count)', list)
    .option('-r, --radius <metres>', 'radius in metres of every Point zone that has none of its own', number)
    .addOption(new Option('-f, --format <format>', 'output format (default: by the --output extension, else csv)').choices([...OUTPUT_FORMATS]))
    .option('-o, --output <file>', 'write to this file instead of stdout (required for geoparquet)')
    .option('--concurrency <n>', 'with --server: requests in flight', count(1), 4)
    .addOption(
      new Option('--server <url>', 'answer with a running service instead of in process (repeat for several, used in turn)')
        .argParser(collect)
        .default([], 'in process'),
    )
    .option('--job', 'with --server: the zones as one job of the first server (OGC API – Processes), polled, its results downloaded')
    .option('--chunk <n>', 'with --server: zones per request', count(1), 500)
    .option('--retries <n>', 'with --server: tries again after 502/503/504 or a connection error', count(0), 3)
    .option('--retry-delay <ms>', 'with --server: wait before the first retry, doubled at each next one', count(0), 250)
    .option('--no-progress', 'no progress bar (it is shown only when stderr is a terminal)')
    .showHelpAfterError(`(zonal ${cmd.name()} --help lists the options)`);
}

/** The media type of each --zones-format, for a zones file the service reads (--zones-href). */
const MEDIA_TYPE_OF: Record<ZonesFormat, string> = { geojson: 'application/geo+json', geoparquet: 'application/vnd.apache.parquet', csv: 'text/csv' };

/** Where the zones come from: a local file (--zones), or with --job a file the service reads (--zones-href); CliError otherwise. */
function checkZonesOptions(o: CommonOptions): void {
  if (o.job && o.server.length === 0) throw new CliError('--job sends the zones to a service: name it with --server URL.');
  if (o.zonesHref === undefined) {
    if (o.zones === undefined) throw new CliError("required option '-z, --zones <file>' not specified (or --zones-href <url> with --server URL --job).");
    if (o.zonesType !== undefined) throw new CliError('--zones-type goes with --zones-href (a local zones file takes --zones-format).');
    return;
  }
  if (!o.job) throw new CliError('--zones-href is read by the service: it goes with --server URL --job.');
  if (o.zones !== undefined) throw new CliError('--zones and --zones-href both name the zones: give one of them.');
  if (o.geometryColumn !== undefined || o.idColumn !== undefined) {
    throw new CliError('--geometry-column and --id-column apply to a local zones file: the service reads a --zones-href file with its defaults.');
  }
}

export function buildProgram(
  start: (kind: JobKind, source: string, body: Omit<Job['body'], 'url'>, common: CommonOptions) => Promise<void>,
  startWorker: () => Promise<void>,
): Command {
  const program = new Command('zonal')
    .description('Zonal statistics of a Cloud Optimized GeoTIFF or a GeoParquet file for every zone of a zones file.')
    .exitOverride()
    .showHelpAfterError('(zonal --help lists the commands)');
  withCommon(
    program
      .command('raster')
      .description('statistics of raster bands inside each zone')
      .argument('<source>', 'a COG: local path, file://, http(s):// or s3:// URL')
      .option('-b, --bands <list>', 'band numbers, comma-separated (default: 1)', numbers)
      .addOption(new Option('--pixels <rule>', 'which pixels count (default: center)').choices(['center', 'all_touched', 'fractional']))
      .option('--approx', 'read an overview (approx_stats), skipping the area and pixel limits'),
  ).action(async (source: string, o: RasterOptions) => {
    await start('raster', source, { stats: o.stats, bands: o.bands, pixels: o.pixels, approx_stats: o.approx, radius: o.radius }, o);
  });
  withCommon(
    program
      .command('vector')
      .description('statistics of numeric GeoParquet columns inside each zone')
      .argument('<source>', 'a GeoParquet file (.parquet or .geoparquet): local path, file://, http(s):// or s3:// URL')
      .requiredOption('-c, --columns <list>', 'columns to summarise, comma-separated', list)
      .addOption(
        new Option('--weighting <method>', 'weight of a feature: intersection area, or its share of the feature (default: area)').choices(['area', 'ratio']),
      )
      .option('--source-geometry-column <name>', "the source's geometry column (default: its primary column)"),
  ).action(async (source: string, o: VectorOptions) => {
    await start(
      'vector',
      source,
      { columns: o.columns, stats: o.stats, weighting_method: o.weighting, geometry_column: o.sourceGeometryColumn, radius: o.radius },
      o,
    );
  });
  program
    .command('worker')
    .description("take the tasks of jobs from Redis (ZONAL_REDIS_URL) until SIGTERM or Ctrl-C; configured by the service's environment variables")
    .action(startWorker);
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = (): void => {
    if (++interrupts > 1) process.exit(EXIT_INTERRUPTED);
    controller.abort(new CliError('Stopped (Ctrl-C).'));
  };
  process.on('SIGINT', onInterrupt);
  // The launcher (bin/zonal.mjs) runs from the project's folder and names the user's one here.
  const cwd = process.env['ZONAL_CLI_CWD'] ?? process.cwd();
  let code = 0;
  const log = (line: string): void => void process.stderr.write(`zonal: ${line}\n`);
  const program = buildProgram(
    async (kind, source, body, o) => {
      checkZonesOptions(o);
      // Loaded once the options are checked: a usage error or --help answers without loading the engine.
      const { run, sourceUrl } = await import('./run.ts');
      const format = o.format ?? (o.output !== undefined ? formatOfPath(o.output) : undefined) ?? 'csv';
      code = await run({
        job: { kind, body: { url: sourceUrl(source, cwd), ...body } },
        zones: o.zones,
        asJob: o.job,
        zonesHref: o.zonesHref === undefined ? undefined : sourceUrl(o.zonesHref, cwd),
        zonesType: o.zonesType ?? (o.zonesFormat === undefined ? undefined : MEDIA_TYPE_OF[o.zonesFormat]),
        zonesOptions: { format: o.zonesFormat, geometryColumn: o.geometryColumn, idColumn: o.idColumn },
        format,
        output: o.output,
        concurrency: o.concurrency,
        servers: o.server,
        chunk: o.chunk,
        retries: o.retries,
        retryDelay: o.retryDelay,
        progress: o.progress,
        signal: controller.signal,
        cwd,
        log,
      });
    },
    async () => {
      // Loaded only here: the jobs engine brings Redis, BullMQ and S3 clients every other run can do without.
      const { runWorker } = await import('./worker.ts');
      code = await runWorker({ signal: controller.signal, log });
    },
  );
  try {
    await program.parseAsync([...argv]);
    return code;
  } catch (e) {
    // commander has already printed its own message (or the help).
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT_USAGE;
    process.stderr.write(`zonal: ${messageOf(e)}\n`);
    return controller.signal.aborted ? EXIT_INTERRUPTED : EXIT_USAGE;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

// If the event loop ever empties while zones are still owed (nothing left that could answer them), say so
// instead of leaving a silent, cut output (Node would exit with 13, "unsettled top-level await").
let finished = false;
process.on('exit', (exitCode) => {
  if (finished) return;
  process.stderr.write('zonal: Stopped before every zone was answered: the engine had nothing left running (an internal error).\n');
  if (exitCode === 0 || exitCode === 13) process.exitCode = EXIT_USAGE;
});
const code = await main(process.argv);
finished = true;
process.exitCode = code;
// Nothing should keep the process alive now; if something does (a socket kept open), do not wait for it.
setTimeout(() => process.exit(code), 2000).unref();
