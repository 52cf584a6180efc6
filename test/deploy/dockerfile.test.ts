/**
 * The Dockerfile, read statically (no Docker engine here): multi-stage, the final stage on Node 24 LTS
 * with only production modules and the compiled code, non-root, a HEALTHCHECK on /health/live, node as the
 * command (signals reach the server); every COPY source exists and passes .dockerignore.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const text = readFileSync(new URL('Dockerfile', ROOT), 'utf8');
const ignore = readFileSync(new URL('.dockerignore', ROOT), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const stages = text
  .split(/^FROM /m)
  .slice(1)
  .map((s) => `FROM ${s}`);
const final = stages.at(-1) as string;

describe('Dockerfile', () => {
  it('is multi-stage; the image runs Node 24 LTS, non-root, health-checked, `node dist/server.js`', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(final).toMatch(/^FROM node:24-[a-z-]+\s*$/m);
    expect(final).toMatch(/^USER node$/m);
    expect(final).toMatch(/HEALTHCHECK[\s\S]*\/health\/live/);
    expect(final).toMatch(/^CMD \["node", (?:"--[a-z-]+=\d+", )*"dist\/server\.js"\]$/m);
  });

  it('starts node with the options `npm start` gives it (the memory the README states is measured with them)', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: Record<string, string> };
    const npmStart = /exec node (.*?)\s*dist\/server\.js/
      .exec(pkg.scripts['start'] ?? '')?.[1]
      ?.split(/\s+/)
      .filter(Boolean);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(final)?.[1] ?? '[]') as string[];
    expect(npmStart).toContain('--max-semi-space-size=4');
    expect(cmd.slice(1, -1)).toEqual(npmStart);
  });

  it('has no dev tooling in the final stage: no sources, no tsx, no full npm ci', () => {
    expect(final).not.toMatch(/COPY (\.\/)?src|tsx|typescript/);
    expect(final).not.toMatch(/npm ci(?! --omit=dev)/);
    expect(text).toMatch(/npm ci --omit=dev/);
  });

  it('every COPY from the context exists and is not ignored', () => {
    for (const line of text.split('\n').filter((l) => /^COPY (?!--from)/.test(l))) {
      const sources = line
        .replace(/^COPY /, '')
        .split(/\s+/)
        .slice(0, -1);
      for (const s of sources) {
        expect(existsSync(new URL(s, ROOT)), s).toBe(true);
        const top = s.replace(/^\.\//, '').split('/')[0] as string;
        const excluded = ignore.includes(top) && !ignore.includes(`!${s.replace(/^\.\//, '')}`);
        expect(excluded, `${s} is excluded by .dockerignore`).toBe(false);
      }
    }
  });

  it('builds the native inflater and fold in a build stage and ships them, with libdeflate0, the one runtime library', () => {
    const build = stages.find((st) => /scripts\/build-native\.mjs/.test(st)) ?? '';
    expect(build).toMatch(/apt-get install[^\n]*libdeflate-dev/);
    expect(build).toMatch(/COPY native \.\/native/);
    expect(final).toMatch(/apt-get install[^\n]*libdeflate0/);
    expect(final).not.toMatch(/libdeflate-dev|g\+\+|node-gyp/);
    expect(final).toMatch(
      /COPY --from=build \/app\/native\/inflate\/build\/Release\/zonal_inflate\.node \.\/native\/inflate\/build\/Release\/zonal_inflate\.node/,
    );
    // The native fold, built beside it (no library of its own).
    expect(build).toMatch(/test -f native\/fold\/build\/Release\/zonal_fold\.node/);
    expect(final).toMatch(/COPY --from=build \/app\/native\/fold\/build\/Release\/zonal_fold\.node \.\/native\/fold\/build\/Release\/zonal_fold\.node/);
    // The build output stays out of the context: the image's binding is the one built in the build stage.
    expect(ignore).toContain('native/*/build');
  });

  it('.dockerignore keeps node_modules, dist, tests and benchmarks out of the context', () => {
    for (const p of ['node_modules', 'dist', 'test', 'bench', '.git']) expect(ignore).toContain(p);
  });
});
