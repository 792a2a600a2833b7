// Lint: floating promises are errors everywhere; workflow code may not import Node built-ins or
// anything that does I/O (Temporal replays workflows, so they must be deterministic).
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** The production rooms; tools/, test/ and sdk/ are not among them. */
const PRODUCTION_ROOMS = ['domain', 'config', 'contract', 'carriers', 'db', 'activities', 'workflows', 'workers', 'api', 'codec', 'runtime', 'admin', 'labels', 'util'];
/**
 * Doors beside index.ts: signing needs node:crypto, so it stays out of the index; workflow.ts is the
 * light door that workflow code and the contract take, so the workflow bundle evaluates no more of domain/.
 */
const EXTRA_DOORS = { domain: ['webhook-signature.js', 'workflow.js'] };
const WORKFLOW_FORBIDDEN_PATHS = [...nodeBuiltins, 'pg', 'undici', 'drizzle-orm', 'pino', 'fastify', '@temporalio/client', '@temporalio/worker'];
/** Workflows do no I/O: of carriers/ and activities/ they import types only. */
const WORKFLOW_FORBIDDEN_PATTERNS = [
  { group: ['**/config/**', '**/db/**', '**/api/**', '**/workers/**', '**/runtime/**', '**/admin/**', '**/labels/**', '**/codec/**', '**/util/**'], message: 'Workflows do no I/O.' },
  { group: ['**/carriers/**', '**/activities/**'], allowTypeImports: true, message: 'Workflows import only types from carriers/ and activities/.' },
];
/**
 * The contract is bundled into every workflow: it stays as light as workflow code (no configuration,
 * no TypeBox, no I/O), and of domain/ it takes the light door, workflow.ts.
 */
const CONTRACT_FORBIDDEN_PATHS = [...WORKFLOW_FORBIDDEN_PATHS, '@sinclair/typebox'];
const CONTRACT_FORBIDDEN_PATTERNS = [
  { group: ['**/config/**', '**/db/**', '**/api/**', '**/workers/**', '**/runtime/**', '**/admin/**', '**/labels/**', '**/codec/**', '**/util/**', '**/activities/**'], message: 'The contract does no I/O and reads no configuration: workflows import it.' },
  { group: ['**/carriers/**'], allowTypeImports: true, message: 'The contract imports only types from carriers/.' },
  { group: ['**/domain/index.js'], message: "The contract takes domain/'s light door, domain/workflow.js." },
];
const FORBIDDEN_PATHS = { workflows: WORKFLOW_FORBIDDEN_PATHS, contract: CONTRACT_FORBIDDEN_PATHS };
const FORBIDDEN_PATTERNS = { workflows: WORKFLOW_FORBIDDEN_PATTERNS, contract: CONTRACT_FORBIDDEN_PATTERNS };

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
    // Production code reads its settings from config/, which alone reads the environment (through
    // config/env.ts) and parses it once into plain objects; tools/ and the tests may set up their own.
    files: ['**/*.ts'],
    ignores: ['config/env.ts', 'tools/**', 'test/**', 'sdk/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read settings from config/ (the Config it parses at start).' }],
    },
  },
  // Each room (folder) is imported from outside through its door, index.ts (docs/architecture.md#the-rooms);
  // production code never imports tools/ (what development and testing run) or the tests; tools/ may
  // import anything; the API reaches workers and activities only through Temporal. No room but workers/
  // imports workflows/, not even a type: what others share with workflows is the contract (contract/).
  ...PRODUCTION_ROOMS.map((room) => ({
    files: [`${room}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: FORBIDDEN_PATHS[room] ?? [],
          patterns: [
            ...(FORBIDDEN_PATTERNS[room] ?? []),
            { group: ['**/tools/**', '**/test/**'], message: 'Production code does not import tools/ or the tests.' },
            ...(room === 'api' ? [{ group: ['**/workers/**', '**/activities/**'], message: 'The API reaches workers and activities only through Temporal.' }] : []),
            ...PRODUCTION_ROOMS.filter((other) => other !== room).map((other) =>
              other === 'workflows' && room !== 'workers'
                ? { group: ['**/workflows/**'], message: 'Only workers/ names workflows/ (the bundle); share types through contract/.' }
                : {
                    group: [`**/${other}/**`, `!**/${other}/index.js`, ...(EXTRA_DOORS[other] ?? []).map((door) => `!**/${other}/${door}`)],
                    message: `Import ${other}/ through its door, ${other}/index.js.`,
                  },
            ),
          ],
        },
      ],
    },
  })),
  {
    // Development and test tools may import any room, but never the tests: what a tool and the
    // tests share lives in tools/ (tools/stack/, tools/carrier-sim/) and the tests build on it.
    files: ['tools/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/test/**'], message: 'Tools do not import the tests: move what both need into tools/.' }] }],
    },
  },
);
