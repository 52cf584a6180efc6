/** An NDJSON response body read line by line as it streams, for the benchmark drivers. */

/** Calls `take` with each line of `res`'s body (the last one even without a newline; blank ones too) as the chunks arrive; returns the bytes read. */
export async function eachLine(res: Response, take: (line: string) => void): Promise<number> {
  const decoder = new TextDecoder();
  let rest = '';
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    rest += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = rest.indexOf('\n')) >= 0) {
      take(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
    }
  }
  take(rest + decoder.decode());
  return bytes;
}
