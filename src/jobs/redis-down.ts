/** Whether a Redis error means "not reachable now": its own file, so that telling it needs neither ioredis nor BullMQ loaded. Pure. */

/** Redis errors that mean "not reachable now" rather than a bug. */
export function isRedisDown(e: unknown): boolean {
  const m = e instanceof Error ? e.message : '';
  return /Command timed out|Connection is closed|Stream isn't writeable|enableOfflineQueue|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|connect|MaxRetriesPerRequest/i.test(
    m,
  );
}
