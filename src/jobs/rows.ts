/**
 * A part's rows: one JSON line per outcome (its zone, Item, statistics or error), written by a task and read
 * back, in order, to be represented in the format a client asks for (formats/). Pure.
 */
import type { ZoneOutcome } from '../zonal/model.ts';

/** One outcome as a line of a part (the error's cause stays behind: it is the process's, not the row's). */
export function rowLine(o: ZoneOutcome): string {
  const { cause: _cause, ...row } = o;
  return `${JSON.stringify(row)}\n`;
}

/** The outcomes of a part's bytes, as they come (a line may span chunks). */
export async function* rowsOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ZoneOutcome> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of chunks) {
    rest += decoder.decode(chunk, { stream: true });
    // Lines are cut by position and the rest kept once per chunk: cutting the rest at every line copied a
    // chunk once per line it holds.
    let start = 0;
    for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n', start)) {
      const line = rest.slice(start, nl);
      start = nl + 1;
      if (line.length > 0) yield JSON.parse(line) as ZoneOutcome;
    }
    rest = rest.slice(start);
  }
  rest += decoder.decode();
  if (rest.trim().length > 0) yield JSON.parse(rest) as ZoneOutcome;
}
