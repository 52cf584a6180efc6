/**
 * The native fold of a cube's steps (native/fold/: packRun in C, the same bits), built by
 * scripts/build-native.mjs where a C compiler and Node's headers exist; else the fold stays in JavaScript
 * (raster/fold-plain.ts), with the same numbers out. In the cube benchmark the JavaScript loop took ~27 ns a
 * cell of the workers' CPU, ~50 M cells a request. `ZONAL_FOLD=js` keeps JavaScript (read here, since worker
 * threads load this module on their own).
 */
import { loadAddon } from '../codecs/native-addon.ts';
import type { PackKernel } from './fold-plain.ts';

/** The fold a thread uses, and why not the native one when it is JavaScript. */
export interface FoldInfo {
  backend: 'native' | 'js';
  reason: string;
}

const ADDON = new URL('../../native/fold/build/Release/zonal_fold.node', import.meta.url);

/** The kernel where it is built and wanted, else null and why. */
function load(): { kernel: PackKernel | null; info: FoldInfo } {
  if ((process.env['ZONAL_FOLD'] ?? 'auto') === 'js') return { kernel: null, info: { backend: 'js', reason: 'ZONAL_FOLD=js' } };
  const { binding, why } = loadAddon<PackKernel>(ADDON, 'fold');
  return { kernel: binding, info: binding === null ? { backend: 'js', reason: why } : { backend: 'native', reason: '' } };
}

const loaded = load();

/** This thread's native fold, or null (raster/fold-plain.ts useFoldKernel takes it). */
export const foldKernel = (): PackKernel | null => loaded.kernel;

/** Which fold the threads use (native, or JavaScript and why), for the start-up log. */
export const foldBackend = (): FoldInfo => loaded.info;
