// The fleet's worker processes: which queue groups each runs, and the workflow bundle (build) it loads.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { parseServiceConfig } from '../../runtime/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import { WORKFLOWS_PATH } from '../../workers/run.js';

/** A worker build: the workflow bundle its processes load and the build id they poll as. */
export interface WorkerBuild {
  buildId: string;
  bundlePath: string;
}

/** Bundles the workflows at `workflowsPath` into `<dir>/workflow-bundle-<buildId>.js`; the build id is the bundle's hash. */
export async function buildWorkflowBundle(dir: string, workflowsPath = WORKFLOWS_PATH): Promise<WorkerBuild> {
  const quiet = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
  const buildId = createHash('sha256').update(code).digest('hex').slice(0, 12);
  const bundlePath = path.join(dir, `workflow-bundle-${buildId}.js`);
  await mkdir(dir, { recursive: true });
  await writeFile(bundlePath, code);
  return { buildId, bundlePath };
}

/**
 * The groups of the worker processes: two `shipments`, one per enabled carrier, one `webhooks`.
 * `env` is the carriers' part of the processes' environment: a real carrier is enabled, and gets
 * its `carrier-<code>` worker, where it holds its URL and every required setting.
 */
export function workerLayout(env: Record<string, string | undefined> = {}): Array<{ name: string; groups: string[] }> {
  const carrierEnv = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('CARRIER_')));
  const carriers = carrierRegistryFor(parseServiceConfig(carrierEnv)).definitions.map((d) => d.code);
  return [
    { name: 'worker-shipments-1', groups: ['shipments'] },
    { name: 'worker-shipments-2', groups: ['shipments'] },
    ...carriers.map((code) => ({ name: `worker-carrier-${code}`, groups: [`carrier-${code}`] })),
    { name: 'worker-webhooks', groups: ['webhooks'] },
  ];
}
