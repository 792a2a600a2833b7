/**
 * Bundles the workflow code once, at build time, so production workers start without webpack:
 * `npm run build:workflows` writes dist/workflow-bundle.js, which workers load when present
 * (WORKFLOW_BUNDLE_PATH overrides the location).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { toolingSettings } from '../domain/index.js';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../workers/run.js';

const out = path.resolve(toolingSettings().workflowBundlePath);
const started = Date.now();
const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES });
await mkdir(path.dirname(out), { recursive: true });
await writeFile(out, code);
process.stdout.write(`workflow bundle: ${out} (${Math.round(code.length / 1024)} KiB) in ${Date.now() - started} ms\n`);
