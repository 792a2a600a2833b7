// Lint: floating promises are errors everywhere; workflow code may not import Node built-ins or
// anything that does I/O (Temporal replays workflows, so they must be deterministic).
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** The production rooms; tools/, test/ and sdk/ are not among them. */
const PRODUCTION_ROOMS = ['domain', 'carriers', 'db', 'activities', 'workflows', 'workers', 'api', 'codec', 'runtime', 'admin', 'labels', 'util'];
/** Doors beside index.ts: signing needs node:crypto, so it stays out of the index workflows bundle. */
const EXTRA_DOORS = { domain: ['webhook-signature.js', 'workflow.js'] };
const WORKFLOW_FORBIDDEN_PATHS = [...nodeBuiltins, 'pg', 'undici', 'drizzle-orm', 'pino', 'fastify', '@temporalio/client', '@temporalio/worker'];
/** Workflows do no I/O: of carriers/ and activities/ they import types only. */
const WORKFLOW_FORBIDDEN_PATTERNS = [
  { group: ['**/db/**', '**/api/**', '**/workers/**', '**/runtime/**', '**/admin/**', '**/labels/**', '**/codec/**', '**/util/**'], message: 'Workflows do no I/O.' },
  { group: ['**/carriers/**', '**/activities/**'], allowTypeImports: true, message: 'Workflows import only types from carriers/ and activities/.' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'sdk/dist/**', 'test-results/**', '.data/**', 'db/migrations/**', '**/*.mjs', '**/*.cjs', 'eslint.config.js'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    // Configuration comes from validated modules (domain/config.ts, tools/tooling-config.ts), which
    // alone read the environment, through domain/env.ts; tests may set up their own.
    files: ['**/*.ts'],
    ignores: ['domain/env.ts', 'test/**', 'sdk/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read settings from the config module (domain/config.ts, tools/tooling-config.ts).' }],
    },
  },
  // Each room (folder) is imported from outside through its door, index.ts (docs/architecture.md#the-rooms);
  // production code never imports tools/ (what development and testing run) or the tests; tools/ may
  // import anything; the API reaches workers and activities only through Temporal.
  ...PRODUCTION_ROOMS.map((room) => ({
    files: [`${room}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: room === 'workflows' ? WORKFLOW_FORBIDDEN_PATHS : [],
          patterns: [
            ...(room === 'workflows' ? WORKFLOW_FORBIDDEN_PATTERNS : []),
            { group: ['**/tools/**', '**/test/**'], message: 'Production code does not import tools/ or the tests.' },
            ...(room === 'api' ? [{ group: ['**/workers/**', '**/activities/**'], message: 'The API reaches workers and activities only through Temporal.' }] : []),
            ...PRODUCTION_ROOMS.filter((other) => other !== room).map((other) => ({
              group: [`**/${other}/**`, `!**/${other}/index.js`, ...(EXTRA_DOORS[other] ?? []).map((door) => `!**/${other}/${door}`)],
              message: `Import ${other}/ through its door, ${other}/index.js.`,
            })),
          ],
        },
      ],
    },
  })),
);
