/**
 * The CLI's failures in the user's words: a usage or request problem is a CliError (exit 2), the
 * engine's ZonalError and SourceError keep their own sentences; nothing prints a stack trace.
 */
import { ZonalError } from '../errors.ts';
import { SourceError } from '../source/source.ts';
import { toZonalError } from '../source/errors.ts';

/** Exit codes: every zone answered; some zone had an error (all results still written); usage or request error. */
export const EXIT_OK = 0;
export const EXIT_ZONE_ERRORS = 1;
export const EXIT_USAGE = 2;

/** A problem of the command (its options, its files, the source, a server's answer): exit 2. */
export class CliError extends Error {}

/** The sentence to print for any error. */
export function messageOf(e: unknown): string {
  if (e instanceof CliError) return e.message;
  const z = e instanceof ZonalError ? e : e instanceof SourceError ? toZonalError(e) : null;
  if (z) {
    // The service's sentence; on the command line the switch is the user's own.
    const hint = z.code === 'url_forbidden' && /private/.test(z.detail) ? ' Set ZONAL_ALLOW_PRIVATE_NETWORKS=1 (or a list of CIDR ranges) to allow it.' : '';
    return `${z.detail}${hint}`;
  }
  if (e instanceof Error && e.name === 'AbortError') return 'Stopped.';
  const text = e instanceof Error ? e.message : String(e);
  return `Unexpected failure: ${text}`;
}
