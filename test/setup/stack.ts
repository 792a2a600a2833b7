import type { TestProject } from 'vitest/node';
import { startInfra } from '../support/infra.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    carrierSimUrl: string;
    workflowBundlePath: string;
  }
}

/**
 * One PostgreSQL, one Temporal dev server, one carrier simulator and one workflow bundle for the
 * whole run. Test files start their own API and workers on these, isolated by account and
 * task-queue prefix.
 */
export default async function setup(project: TestProject) {
  const infra = await startInfra((msg) => process.stderr.write(`[stack] ${msg}\n`));
  project.provide('databaseUrl', infra.databaseUrl);
  project.provide('temporalAddress', infra.temporalAddress);
  project.provide('carrierSimUrl', infra.carrierSimUrl);
  project.provide('workflowBundlePath', infra.workflowBundlePath);
  return () => infra.stop();
}
