#!/usr/bin/env node
/**
 * The test suite again on Node 24 LTS (the container's Node): npm's `node-<platform>-<arch>` package of
 * that release, which holds the binary itself. (`npx -p node@24` installs a package whose install script
 * fetches the binary, and this project's `ignore-scripts` skipped it: the suite silently ran on the
 * machine's Node.) ZONAL_EXPECT_NODE_MAJOR makes test/runtime.test.ts check which Node ran.
 */
import { spawnSync } from 'node:child_process';

const MAJOR = 24;
const pkg = `node-${process.platform}-${process.arch}@${MAJOR}`;
const run = spawnSync('npx', ['-y', '-p', pkg, '--', 'npm', 'run', 'test:suite'], {
  stdio: 'inherit',
  env: { ...process.env, ZONAL_EXPECT_NODE_MAJOR: String(MAJOR) },
});
process.exit(run.status ?? 1);
