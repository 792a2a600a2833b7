// Lint: floating promises are errors everywhere; workflow code may not import Node built-ins or
// anything that does I/O (Temporal replays workflows, so they must be deterministic).
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

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
    // Configuration comes from one validated module (domain/config.ts, domain/tooling-config.ts), which
    // alone reads the environment through domain/env.ts; tests may set up their own.
    files: ['**/*.ts'],
    ignores: ['domain/env.ts', 'test/**', 'sdk/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read settings from the config module (domain/config.ts, domain/tooling-config.ts).' }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, 'pg', 'undici', 'drizzle-orm', 'pino', 'fastify', '@temporalio/client', '@temporalio/worker'],
          patterns: [
            { group: ['../db/*', '../db', '../api/*', '../carriers/*', '!../carriers/types.js'], message: 'Workflows do no I/O.' },
          ],
        },
      ],
    },
  },
);
