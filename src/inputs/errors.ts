/** The one error of the inputs layer: a zones file that cannot be read as zones, in the user's words. */

/**
 * A zones file that is not readable as zones (missing, not JSON, no geometry column, too large …). Its
 * message is a sentence for the user that names the file as the caller named it; the CLI prints it (exit
 * 2), a job's task answers it as the request's problem.
 */
export class ZonesFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZonesFileError';
  }
}
