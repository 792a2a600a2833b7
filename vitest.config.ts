import { defineConfig } from 'vitest/config';

// One Temporal dev server, one PostgreSQL, one carrier simulator and one time-skipping test server
// per run (started by the global setups); tests isolate themselves by account and task queue.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/stack.ts', 'test/setup/time-skipping.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
  },
});
