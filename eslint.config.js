// Lint = the dependency boundaries of the conventions guide, plus TypeScript's recommended rules.
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ['error', { patterns }];
const FRAMEWORKS = [
  { group: ['@temporalio/*'], message: 'engine/ imports no Temporal' },
  { group: ['fastify', '@fastify/*'], message: 'engine/ imports no Fastify' },
  { group: ['@aws-sdk/*'], message: 'engine/ imports no AWS SDK' },
];
const layer = (dir) => ({ group: [`**/${dir}/**`, `../${dir}/*`, `../../${dir}/*`, `../../../${dir}/*`] });
const API = [
  {
    group: ['@temporalio/worker', '@temporalio/workflow', '@temporalio/activity'],
    message: 'api/ talks to Temporal through @temporalio/client only',
  },
  { ...layer('activities'), message: 'api/ must not import activities/' },
  { ...layer('worker'), message: 'api/ must not import worker/' },
  {
    group: ['**/workflows/*', '!**/workflows/contracts.ts'],
    message: 'api/ imports only workflows/contracts.ts',
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.tools/**',
      'data/**',
      'models/.venv/**',
      'bench/out/**',
      'coverage/**',
      'web/dist/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['engine/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        ...FRAMEWORKS,
        { ...layer('api'), message: 'engine/ must not import api/' },
        { ...layer('workflows'), message: 'engine/ must not import workflows/' },
        { ...layer('activities'), message: 'engine/ must not import activities/' },
        { ...layer('worker'), message: 'engine/ must not import worker/' },
        { ...layer('store'), message: 'engine/ must not import store/' },
      ]),
    },
  },
  {
    files: ['api/**/*.ts'],
    rules: { 'no-restricted-imports': restrict(API) },
  },
  {
    // Routes are one call deep into a service: they see services, schemas and contracts only.
    files: ['api/routes/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        ...API,
        { ...layer('store'), message: 'routes reach the store through api/services' },
        { ...layer('engine'), message: 'routes reach the engine through api/services' },
        { group: ['@temporalio/*'], message: 'routes reach Temporal through api/services' },
      ]),
    },
  },
  {
    // Services hold the capabilities; HTTP (Fastify, routes, replies) stays in routes and plugins.
    files: ['api/services/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        ...API,
        { group: ['fastify', '@fastify/*'], message: 'api/services know no HTTP framework' },
        { ...layer('routes'), message: 'api/services must not import routes' },
        { ...layer('plugins'), message: 'api/services must not import plugins' },
      ]),
    },
  },
  {
    // Shared builders and benchmarks stand beside the tests, not on them, and never on the composition root.
    files: ['bench/**/*.ts', 'testkit/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { ...layer('test'), message: 'shared builders live in testkit/, not test/' },
        { ...layer('bin'), message: 'run the service through its CLI, not bin/ modules' },
      ]),
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        {
          group: [
            'node:*',
            'fs',
            'path',
            'os',
            'crypto',
            'child_process',
            'worker_threads',
            'stream',
            'http',
            'net',
          ],
          message: 'workflows run in the deterministic sandbox: no Node built-ins',
        },
        { ...layer('engine'), message: 'workflows reach the engine through activities' },
        { ...layer('api'), message: 'workflows must not import api/' },
        { ...layer('store'), message: 'workflows must not import store/' },
      ]),
    },
  },
  {
    // The web app is a client of the public HTTP API like any other: no server code.
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    rules: {
      'no-restricted-imports': restrict(
        ['api', 'engine', 'workflows', 'activities', 'worker', 'store', 'platform', 'bin'].map((dir) => ({
          ...layer(dir),
          message: 'web/ talks to the service over HTTP only',
        })),
      ),
    },
  },
  {
    files: ['activities/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { ...layer('api'), message: 'activities must not import api/' },
        { ...layer('worker'), message: 'activities must not import worker/' },
      ]),
    },
  },
);
