/**
 * The Node the suite runs on: `npm test` runs it on the machine's Node and again on Node 24 LTS
 * (scripts/test-lts.mjs sets ZONAL_EXPECT_NODE_MAJOR), and that second run must really be Node 24.
 */
import { describe, expect, it } from 'vitest';

describe('runtime', () => {
  it('runs on the Node major the test command asked for, and on a supported one', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(20);
    const expected = process.env['ZONAL_EXPECT_NODE_MAJOR'];
    if (expected !== undefined) expect(major).toBe(Number(expected));
  });
});
