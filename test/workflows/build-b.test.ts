// Build B of the fleet's versioned-deploy test (test/fleet/cluster.test.ts) is today's workflows plus
// one patched change, made by editing today's source text. That test runs last and takes minutes,
// so a change to workflows/ that moves what build B edits is caught here first, in seconds.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { TRACKING_MEMO_PATCH, writeBuildB } from '../fleet/fixtures/build-b.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('build B of the versioned-deploy test', () => {
  it("is made from today's workflows and bundles, its tracking loop carrying the one patched change", async () => {
    const entry = writeBuildB(path.join(ROOT, 'test-results', `build-b-check-${process.pid}`));
    const tracking = readFileSync(path.join(path.dirname(entry), 'tracking.ts'), 'utf8');
    expect(tracking).toContain(`patched('${TRACKING_MEMO_PATCH}')`);
    expect(tracking).toContain('upsertMemo({ scansSeen');
    const { code } = await bundleWorkflowCode({ workflowsPath: entry, logger: new DefaultLogger('WARN') });
    expect(code).toContain(TRACKING_MEMO_PATCH);
  }, 120_000);
});
