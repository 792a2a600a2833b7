import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, inject, it } from 'vitest';
import { encryptingDataConverter } from '../../codec/index.js';
import { DEV_PAYLOAD_ENCRYPTION_KEY } from '../../config/index.js';
import { workerTracing } from '../../workers/tracing.js';

// Histories recorded from real runs (npm run record-histories) and committed: the current workflow
// code must replay every one of them, or a deploy would break shipments already under way.
const DIR = fileURLToPath(new URL('./histories', import.meta.url));
const files = (await readdir(DIR)).filter((f) => f.endsWith('.json')).sort();
const load = async (file: string) => JSON.parse(await readFile(path.join(DIR, file), 'utf8'));
// Histories are recorded as the fleet writes them: payloads encrypted, here with the development key
// the recording stack runs with.
const dataConverter = encryptingDataConverter({ payloadEncryptionKey: DEV_PAYLOAD_ENCRYPTION_KEY, payloadDecryptionKeys: [] });

/** A build's workflows with the change of fixtures/changed-workflows.ts, as `entry` makes it. */
const changedBuild = (entry: string) =>
  bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL(`./fixtures/${entry}`, import.meta.url)),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });

describe('replaying recorded histories', () => {
  it('has histories of every kind of run', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        // A purchase followed to delivered: its first run, and its last after continue-as-new.
        'shipment-purchase-first-run.json',
        'shipment-delivered-last-run.json',
        'shipment-voided.json',
        'shipment-carrier-refused.json',
        'shipment-carrier-retried-then-voided.json',
        // A buy that timed out, looked up and sent again at once (the buy-backoff-from-send marker).
        'shipment-buy-timed-out-sent-again.json',
        // A delivery and a scan after it in one push: the later scan set aside.
        'shipment-late-scan-set-aside.json',
        // A scan pushed after a newer one, then the delivery: the older scan moves neither status back.
        'shipment-older-scan-kept-status.json',
        // An operator's Cancel while a void retried an unreachable carrier: back to purchased.
        'shipment-cancel-during-void-settled.json',
        // Runs the sweep started to settle what a terminated run left (workflows/purchase.ts and
        // void.ts): a purchase failed and its late label cancelled; a void back to purchased, then
        // voided again.
        'shipment-settled-terminated-purchase.json',
        'shipment-settled-terminated-void.json',
        // A UPS label under Track Alert: its subscription, then delivered by pushes alone.
        'shipment-track-alert-delivered.json',
        // A tracking run that continued as new at its history's bound, with the patch's marker.
        'shipment-history-bound-first-run.json',
        // A tracking run whose scan was written in one step (recordTracking) and which continued as
        // new at the short bound: both patches' markers.
        'shipment-one-step-short-history.json',
        // The same with the poll a local activity (a marker, no activity): the three patches' markers.
        'shipment-local-poll-short-history.json',
        'webhook-retried-then-delivered.json',
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

  // The replay catches a change to a workflow's commands that a deploy would break shipments with,
  // and lets the same change through behind patched().
  it('replays every history on a build whose change to the shipment workflow is behind patched()', { timeout: 180_000 }, async () => {
    const guarded = await changedBuild('guarded-change.ts');
    for (const file of files) await Worker.runReplayHistory({ workflowBundle: guarded, dataConverter }, await load(file), file);
  });

  it('fails every shipment history on the same build with the patched() check removed', { timeout: 180_000 }, async () => {
    const unguarded = await changedBuild('unguarded-change.ts');
    const shipments = files.filter((f) => f.startsWith('shipment-'));
    expect(shipments.length).toBeGreaterThan(0);
    for (const file of shipments) {
      await expect(Worker.runReplayHistory({ workflowBundle: unguarded, dataConverter }, await load(file), file), file).rejects.toBeInstanceOf(
        DeterminismViolationError,
      );
    }
  });
});
