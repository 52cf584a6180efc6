// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '/coverage/**', 'bench/out/**', 'bench/data/**', 'bench/**/node_modules/**', 'bench/**/*.py', 'tools/**/*.py'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: globals.node } },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(fs|path|http|https|net|dns|url|os|zlib|worker_threads|stream|crypto|events|util)$', message: 'Use the node: protocol.' }] },
      ],
    },
  },
  {
    // Pure modules: no I/O, no HTTP (docs/architecture.md).
    files: ['src/geometry/**/*.ts', 'src/coverage/**/*.ts', 'src/stats/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Pure module: no Node I/O.' },
            { group: ['**/source/**', '**/http/**', 'fastify', 'geotiff', '@aws-sdk/*'], message: 'Pure module: no I/O layers.' },
          ],
        },
      ],
    },
  },
  {
    // Files and functions small enough to read at once (issue 22).
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
);
