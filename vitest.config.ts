import { configDefaults, defineConfig } from 'vitest/config';

// The test/fleet/cluster.test.ts file brings up the production topology (tools/fleet: a Temporal
// cluster and a dozen processes); it runs on its own, after every other file, so that neither it
// nor they slow each other on a small machine.
const CLUSTER = 'test/fleet/cluster.test.ts';
// The small chaos run (tools/chaos: its own PostgreSQL, Temporal, simulator, two APIs and four
// workers under SIGKILLs) likewise runs alone, between the two.
const CHAOS = 'test/chaos/chaos.test.ts';
// The documentation checks read files only: no stack to start for them.
const DOCS = 'test/docs/**/*.test.ts';
// Workflow tests (time-skipping server, mocked activities) need no stack: only the test server.
const WORKFLOWS = 'test/workflows/**/*.test.ts';
// The carrier tests start carrier simulators of their own and need nothing else: a carrier
// integrator runs them alone with `npx vitest run --project carriers` (carriers/README.md).
const CARRIERS = 'test/carriers/**/*.test.ts';
// The carrier schemas' generator and the generated files: files only, no simulator.
const CARRIER_SCHEMAS = 'test/carrier-schemas/**/*.test.ts';

// One Temporal dev server, one PostgreSQL and one carrier simulator per run (test/setup/stack.ts);
// the time-skipping test server's jars resolved once (test/setup/time-skipping.ts), each workflow test
// then starting a server of its own. Tests isolate themselves by account and task queue.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, CLUSTER, CHAOS, DOCS, WORKFLOWS, CARRIERS, CARRIER_SCHEMAS],
          globalSetup: ['test/setup/stack.ts', 'test/setup/time-skipping.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'docs', include: [DOCS], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'carriers', include: [CARRIERS, CARRIER_SCHEMAS], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'workflows', include: [WORKFLOWS], globalSetup: ['test/setup/time-skipping.ts'], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'chaos', include: [CHAOS], sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'cluster', include: [CLUSTER], sequence: { groupOrder: 2 } },
      },
    ],
  },
});
