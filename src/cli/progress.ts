/**
 * The progress bar on stderr (cli-progress, the only file importing it): zones done / total, rate, ETA.
 * Shown only when stderr is a terminal; otherwise (a pipe, a file, CI) nothing is printed.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** One more zone done. */
  tick(): void;
  /** `done` zones done in all (a job's progress, read from its status). */
  set(done: number): void;
  stop(): void;
}

const SILENT: Progress = { tick: () => undefined, set: () => undefined, stop: () => undefined };

export function createProgress(total: number, enabled: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled || !stream.isTTY || total === 0) return SILENT;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'zones {bar} {value}/{total} | {rate} zones/s | ETA {eta_formatted}',
      etaBuffer: 200,
      fps: 5,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = performance.now();
  let done = 0;
  bar.start(total, 0, { rate: '0' });
  const show = (): void => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    bar.update(done, { rate: rate >= 100 ? rate.toFixed(0) : rate.toFixed(1) });
  };
  return {
    tick() {
      done++;
      show();
    },
    set(n) {
      done = Math.min(total, Math.max(done, n));
      show();
    },
    stop() {
      bar.stop();
    },
  };
}
