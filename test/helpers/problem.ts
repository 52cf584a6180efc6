/**
 * Assertions on problem+json answers (RFC 9457, contract §6) shared by the HTTP, vector and STAC suites:
 * the envelope every error answer has, and a `detail` that shows no server path, stack frame or library
 * text. Each suite keeps its own list of leaks (`LEAKS_COMMON` plus what that endpoint could show) and
 * its own checks of `type`, `instance` and `errors`.
 */
import { tmpdir } from 'node:os';
import { expect } from 'vitest';
import { FIXTURES } from './build-app.ts';

/** What `app.inject` (or a fetch turned into the same shape) answers. */
export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** A parsed problem+json body. */
export type Problem = Record<string, unknown> & { detail: string; code: string; errors?: { path: string; message: string }[] };

/** Text a `detail` may not contain (a string, anywhere) or match (a RegExp). */
export type Leak = string | RegExp;

/** What no `detail` of any endpoint may show: server paths, stack frames, Node error codes, JS leftovers. */
export const LEAKS_COMMON: readonly Leak[] = [
  FIXTURES,
  '/work/',
  tmpdir(),
  'node_modules',
  /\bat .*:\d+:\d+/,
  /\n/,
  /\bE[A-Z]{4,}\b/, // ECONNREFUSED, ENOENT, EPIPE …
  /\bundefined\b/,
  /\[object Object\]/,
  'Unexpected token',
];

/** Asserts that `text` is not blank and contains none of `leaks`. */
export function expectNoLeaks(text: string, leaks: readonly Leak[]): void {
  expect(text.trim().length).toBeGreaterThan(0);
  for (const leak of leaks) {
    if (typeof leak === 'string') expect(text, `detail leaks ${JSON.stringify(leak)}`).not.toContain(leak);
    else expect(text, `detail matches ${String(leak)}`).not.toMatch(leak);
  }
}

/**
 * Asserts the envelope of a problem+json answer: HTTP `status`, the problem+json content type, a string
 * `title` and `detail`, and `status` repeated in the body. Returns the parsed body.
 */
export function expectProblemEnvelope(res: Answer, status: number): Problem {
  expect(res.statusCode, res.body).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json(;|$)/);
  const body = JSON.parse(res.body) as Problem;
  expect(typeof body['title']).toBe('string');
  expect(body['status']).toBe(status);
  expect(typeof body.detail).toBe('string');
  return body;
}

/**
 * Asserts an RFC 9457 problem+json answer with `status`: the envelope, a string `type`, a snake_case
 * `code` (equal to `code` when given), and a `detail` free of `leaks`. Returns the parsed body.
 */
export function expectProblemWithout(leaks: readonly Leak[], res: Answer, status: number, code?: string): Problem {
  const body = expectProblemEnvelope(res, status);
  expect(typeof body['type']).toBe('string');
  expect(body.code).toMatch(/^[a-z][a-z0-9_]*$/);
  if (code !== undefined) expect(body.code).toBe(code);
  expectNoLeaks(body.detail, leaks);
  return body;
}
