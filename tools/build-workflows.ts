/**
 * Bundles the workflow code once, at build time, so production workers start without webpack:
 * `npm run build:workflows` writes dist/workflow-bundle.js, which workers load when present
 * (WORKFLOW_BUNDLE_PATH overrides the location), and beside it the same with tracing's workflow
 * interceptors (dist/workflow-bundle.traced.js), which workers load when tracing is on.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { toolingSettings } from './tooling-config.js';
import { tracedBundlePath, WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../workers/run.js';

const out = path.resolve(toolingSettings().workflowBundlePath);
const started = Date.now();
await mkdir(path.dirname(out), { recursive: true });
for (const [file, workflowInterceptorModules] of [
  [out, []],
  [tracedBundlePath(out), WORKFLOW_INTERCEPTOR_MODULES],
] as const) {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [...workflowInterceptorModules] });
  await writeFile(file, code);
  process.stdout.write(`workflow bundle: ${file} (${Math.round(code.length / 1024)} KiB)\n`);
}
process.stdout.write(`workflow bundles built in ${Date.now() - started} ms\n`);
