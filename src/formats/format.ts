/**
 * An output format: how the outcomes of a request's zones are written (contract §8), for the HTTP answer
 * (chosen by Accept) and the command line (by --format or the output's extension). A format is one file
 * here plus its entry in index.ts.
 */
import type { Answered, ZoneError } from '../zonal/model.ts';
import type { RowsPiece } from '../workers/ndjson-rows.ts';

export interface FormatOptions {
  /** What a row of statistics is keyed by: a raster's bands, a GeoParquet file's columns. */
  keyName: 'band' | 'column' | 'variable';
  /** Whether each zone's geometry is written back (GeoJSON; GeoParquet always writes it). */
  includeGeometry: boolean;
  /** Writes a piece of packed rows' NDJSON lines off this thread (a worker), as rowsPieceBytes would. */
  rowsText?(piece: RowsPiece): Promise<Uint8Array>;
}

export interface Format {
  readonly name: string;
  /** The Content-Type it is sent with. */
  readonly mediaType: string;
  /** The media types of an Accept header that ask for it. */
  readonly accepts: readonly string[];
  /** Output file extensions that name it (the command line). */
  readonly extensions: readonly string[];
  /** Writes each zone as it comes (true), or needs every zone before its first byte (false: columns depend on all). */
  readonly streams: boolean;
  /** Bytes, not text: written to a file, never to a terminal. */
  readonly binary?: boolean;
  /** The output of the outcomes, in pieces. */
  write(outcomes: AsyncIterable<Answered>, options: FormatOptions): AsyncGenerator<string | Uint8Array>;
  /** A streaming format's last piece when the request fails after its first zones were written. */
  failure?(error: ZoneError): string;
}
