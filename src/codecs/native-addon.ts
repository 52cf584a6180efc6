/**
 * Loads one of the project's optional Node-API addons (native/, built by scripts/build-native.mjs): the binding,
 * or null and why, in the words of the start-up log. Each caller keeps its pure fallback.
 */
import { createRequire } from 'node:module';

/** The addon at `url` (its `name` for the reasons), or null and why it is not there or did not load. */
export function loadAddon<T>(url: URL, name: string): { binding: T | null; why: string } {
  try {
    return { binding: createRequire(import.meta.url)(url.pathname) as T, why: '' };
  } catch (e) {
    const code = (e as { code?: string }).code;
    return {
      binding: null,
      why:
        code === 'MODULE_NOT_FOUND'
          ? `the native ${name} is not built (npm run build:native)`
          : `the native ${name} did not load: ${(e as Error).message.split('\n')[0] ?? ''}`,
    };
  }
}
