import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, inject, it } from 'vitest';
import { encryptingDataConverter } from '../../codec/index.js';
import { DEV_PAYLOAD_ENCRYPTION_KEY } from '../../domain/index.js';
import { workerTracing } from '../../workers/tracing.js';

// Histories recorded from real runs (npm run record-histories) and committed: the current workflow
// code must replay every one of them, or a deploy would break shipments already under way.
const DIR = fileURLToPath(new URL('./histories', import.meta.url));
const files = (await readdir(DIR)).filter((f) => f.endsWith('.json')).sort();
const load = async (file: string) => JSON.parse(await readFile(path.join(DIR, file), 'utf8'));
// Histories are recorded as the fleet writes them: payloads encrypted, here with the development key
// the recording stack runs with (the older ones predate encryption and pass through the codec).
const dataConverter = encryptingDataConverter({ payloadEncryptionKey: DEV_PAYLOAD_ENCRYPTION_KEY, payloadDecryptionKeys: [] });

describe('replaying recorded histories', () => {
  it('has histories of every kind of run', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        // Recorded before the lean purchase (patched 'lean-purchase'): shipments already under way.
        'v1-shipment-purchase-first-run.json',
        'v1-shipment-delivered-last-run.json',
        'v1-shipment-voided.json',
        'v1-shipment-carrier-refused.json',
        'v1-shipment-carrier-retried-then-voided.json',
        // Recorded on the lean purchase path (patched 'lean-purchase'), with a render activity.
        'v2-shipment-purchase-first-run.json',
        'v2-shipment-delivered-last-run.json',
        'v2-shipment-voided.json',
        'v2-shipment-carrier-refused.json',
        'v2-shipment-carrier-retried-then-voided.json',
        // Recorded when the capture started the render (patched 'lean-purchase-render-with-capture').
        'v3-shipment-purchase-first-run.json',
        'v3-shipment-delivered-last-run.json',
        'v3-shipment-voided.json',
        'v3-shipment-carrier-refused.json',
        'v3-shipment-carrier-retried-then-voided.json',
        // What a build from before `purchasePath` writes for a shipment whose input names it (a new
        // API beside an old build): its marker, which this code must meet on replay (name-path.ts).
        'v3-named-path-shipment-purchase-first-run.json',
        'v3-named-path-shipment-delivered-last-run.json',
        // Recorded on the current path, the same commands named in the input (no patch marker).
        'shipment-purchase-first-run.json',
        'shipment-delivered-last-run.json',
        'shipment-voided.json',
        'shipment-carrier-refused.json',
        'shipment-carrier-retried-then-voided.json',
        'webhook-retried-then-delivered.json',
        // A delivery whose account was busy for longer than its activity's retries: before the patch
        // 'webhook-busy-is-not-an-attempt' it counted as a failed attempt; after it, attempt 1 again.
        'webhook-busy-counted-as-attempt.json',
        'webhook-busy-not-an-attempt.json',
        // A delivery and a scan after it in one push: applied before the patch 'nothing-after-delivery'
        // (the shipment's tracking went back to exception), set aside after it.
        'shipment-late-scan-applied.json',
        'shipment-late-scan-set-aside.json',
        // An operator's Cancel while a void retried an unreachable carrier: the shipment stayed
        // voiding before the patch 'cancel-during-void-settles', back to purchased after it.
        'shipment-cancel-during-void-left-voiding.json',
        'shipment-cancel-during-void-settled.json',
        // Runs the sweep started to settle what a terminated run left (workflows/settle.ts): a
        // purchase failed and its late label cancelled; a void back to purchased, then voided again.
        'shipment-settled-terminated-purchase.json',
        'shipment-settled-terminated-void.json',
        // A scan pushed after a newer one, then the delivery: it moved both statuses back (the
        // exception to in_transit) before the patch 'older-scan-keeps-status', none after it.
        'shipment-older-scan-moved-back.json',
        'shipment-older-scan-kept-status.json',
      ]),
    );
  });

  for (const file of files) {
    it(`replays ${file} against the current code`, async () => {
      // The tests' bundle carries tracing's workflow interceptors: their sink is there, as in a worker.
      await Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') }, dataConverter, sinks: workerTracing(undefined, []).sinks },
        await load(file),
        file,
      );
    });
  }

  it('fails the build for a deliberately non-deterministic change to the shipment workflow', async () => {
    const changed = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./fixtures/changed-workflows.ts', import.meta.url)),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    });
    await expect(
      Worker.runReplayHistory({ workflowBundle: changed, dataConverter }, await load('shipment-voided.json'), 'changed'),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
