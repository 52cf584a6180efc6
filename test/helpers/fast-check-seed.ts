/**
 * Property tests (fast-check) run from one fixed seed, so that the suite gives the same verdict on every
 * run: a random seed once failed a CI run on a case the test itself got wrong (fractional.test.ts's
 * "disjoint" parts could overlap). Explore with FC_SEED=random (or a number) and fix what it finds.
 */
import fc from 'fast-check';

const seed = process.env['FC_SEED'];
if (seed !== 'random') fc.configureGlobal({ seed: seed === undefined ? 20261126 : Number(seed) });
