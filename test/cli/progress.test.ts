/** The progress bar: drawn on a terminal (zones done / total, rate, ETA), nothing anywhere else. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.ts';

function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream & { isTTY: boolean; columns: number };
  stream.isTTY = isTTY;
  stream.columns = 100;
  (stream as unknown as { cursorTo: () => boolean; clearLine: () => boolean; moveCursor: () => boolean }).cursorTo = () => true;
  (stream as unknown as { clearLine: () => boolean }).clearLine = () => true;
  (stream as unknown as { moveCursor: () => boolean }).moveCursor = () => true;
  return { stream, text: () => text };
}

describe('progress bar', () => {
  it('on a terminal: zones done / total, rate and ETA', () => {
    const { stream, text } = fakeStream(true);
    const p = createProgress(3, true, stream);
    p.tick();
    p.tick();
    p.tick();
    p.stop();
    expect(text()).toMatch(/zones .* 3\/3 \| [\d.]+ zones\/s \| ETA \d+s/);
  });

  it('nothing when the stream is not a terminal, or when turned off', () => {
    for (const [tty, enabled] of [
      [false, true],
      [true, false],
    ] as const) {
      const { stream, text } = fakeStream(tty);
      const p = createProgress(3, enabled, stream);
      p.tick();
      p.stop();
      expect(text()).toBe('');
    }
  });
});
