import { log, patched, upsertSearchAttributes } from '@temporalio/workflow';
import type { ScanToStore, TrackingWrite } from '../activities/index.js';
import type { Scan } from '../carriers/index.js';
import { applyScan, CODE, eventForStatus, isTerminal, type EventType, type ShipmentStatus } from '../domain/workflow.js';
import { SA, type LatestScan, type PurchaseInput, type ShipmentWorkflowInput } from '../contract/index.js';
import { workflowId } from './event-ids.js';
import { failureMessage, failureType } from './failures.js';
import { shipmentActivities } from './proxies.js';
import type { TrackingState } from './tracking.js';

/** Runs after it record a poll's or a push's new scans in one activity, recordTracking (workflows/patches.ts). */
const ONE_WRITE_STEP = 'tracking-one-write-step';

/** What new scans do to a shipment, decided in the workflow before anything is written. */
export interface TrackingPlan {
  /** The scans, oldest first, each with the id of its row. */
  scans: ScanToStore[];
  /** The shipment's marks and the events, in the order they are made. */
  writes: TrackingWrite[];
  /** The shipment's status once the writes are made. */
  status: ShipmentStatus;
  /** The newest scan applied once the writes are made. */
  latest: LatestScan | undefined;
}

/**
 * The writes of new scans (oldest first), as the per-write path makes them one activity each: each
 * scan raises `tracking.updated` and moves the status through the state machine (with its own event)
 * when it changes it; a scan older than one applied is only announced. Every id and `createdAt` is
 * made at `atMs` (the task's time) plus its place: ids made in one task would otherwise share a
 * millisecond and sort by their random part, and events are listed by id, a shipment's scans by
 * their time and then their id.
 */
export function planTracking(input: ShipmentWorkflowInput, state: TrackingState, fresh: Scan[], atMs: number): TrackingPlan {
  const scans = fresh.map((s, i) => ({ ...s, trackingEventId: workflowId('trk', atMs + i) }));
  const writes: TrackingWrite[] = [];
  let events = 0;
  const event = (type: EventType, object?: unknown) => {
    const at = atMs + events++;
    const { accountId, livemode, shipmentId } = input;
    writes.push({ event: { id: workflowId('evt', at), type, accountId, livemode, shipmentId, createdAt: new Date(at).toISOString(), ...(object === undefined ? {} : { object }) } });
  };
  let { status, latest } = state;
  for (const scan of scans) {
    // As the per-write path (tracking.ts, applyScans): an older scan is history, stored and announced
    // under the status the newest put the parcel in; delivered ends the shipment whenever it came.
    if (latest !== undefined && Date.parse(scan.occurredAt) < Date.parse(latest.occurredAt) && scan.status !== 'delivered') {
      event('tracking.updated', trackingUpdate(input, state, latest.status, scan));
      continue;
    }
    latest = { occurredAt: scan.occurredAt, status: scan.status };
    const next = applyScan(status, scan.status);
    const changed = next !== status && !isTerminal(status);
    writes.push({ mark: { trackingStatus: scan.status, ...(changed ? { status: next } : {}) } });
    event('tracking.updated', trackingUpdate(input, state, scan.status, scan));
    if (changed) {
      status = next;
      const type = eventForStatus(next);
      if (type) event(type);
    }
  }
  return { scans, writes, status, latest };
}

/**
 * Records new scans in one activity, `recordTracking`: the plan's writes in its order, in one step. On
 * a worker that no longer caches the workflow each workflow task replays the whole history, so one
 * task for the step, not one per write, is most of what a poll that finds scans costs. The state
 * moves once the writes are made; scans the store refuses are set aside, and nothing is written.
 */
export async function recordInOneStep(input: ShipmentWorkflowInput, state: TrackingState, fresh: Scan[]): Promise<number> {
  const plan = planTracking(input, state, fresh, Date.now());
  try {
    await shipmentActivities().recordTracking({ shipmentId: input.shipmentId, scans: plan.scans, writes: plan.writes });
  } catch (err) {
    if (failureType(err) !== CODE.invalid_data) throw err;
    refuseScans(input, state, fresh, err);
    return 0;
  }
  for (const scan of fresh) state.seenScanIds.add(scan.id);
  state.latest = plan.latest;
  if (plan.status !== state.status) {
    state.status = plan.status;
    upsertSearchAttributes([{ key: SA.ShipmentStatus, value: plan.status }]);
  }
  return fresh.length;
}

/**
 * Scans our store can never accept (a NUL in a carrier's text): the failed activity stays in history
 * for operators, the scans are set aside for the rest of the run, and tracking and any void carry on.
 */
export function refuseScans(input: ShipmentWorkflowInput, state: TrackingState, fresh: Scan[], err: unknown): void {
  const refused = (state.refusedScanIds ??= new Set());
  for (const scan of fresh) refused.add(scan.id);
  state.problem = `scans ${fresh.map((s) => JSON.stringify(s.id)).join(', ')} refused: ${failureMessage(err)}`;
  log.warn('carrier scans refused as invalid data', { shipmentId: input.shipmentId, problem: state.problem });
}

/** `tracking.updated`'s object: the tracking number's status now, and the scan that arrived. */
export function trackingUpdate(input: ShipmentWorkflowInput, state: TrackingState, status: Scan['status'], scan: ScanToStore) {
  return {
    tracking_number: state.trackingNumber,
    shipment_id: input.shipmentId,
    status,
    event: {
      id: scan.trackingEventId,
      occurred_at: scan.occurredAt,
      status: scan.status,
      description: scan.description,
      location: scan.location,
      carrier_code: scan.carrierCode ?? null,
    },
  };
}

/**
 * Records scans not seen before, oldest first: each is stored once, raises `tracking.updated`, and
 * moves the status through the state machine (with its own event) when it changes it. Runs since
 * ONE_WRITE_STEP make all of it one activity (recordInOneStep); runs recorded before it replay one
 * activity per write, as they were recorded.
 */
export async function applyScans(input: ShipmentWorkflowInput, state: TrackingState, scans: Scan[]): Promise<number> {
  const refused = (state.refusedScanIds ??= new Set());
  let fresh = scans
    .filter((s) => !state.seenScanIds.has(s.id) && !refused.has(s.id))
    .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
  const late = scansAfterDelivery(state.status, fresh);
  if (late.length) {
    // Delivered is terminal (spec §3 rule 4): a scan after it (in the same poll, or raced in by a
    // push or a sandbox scan) is set aside, as a scan of a delivered shipment is refused at the door.
    for (const scan of late) state.seenScanIds.add(scan.id);
    fresh = fresh.slice(0, fresh.length - late.length);
    log.warn('scans after delivery set aside', { shipmentId: input.shipmentId, scans: late.map((s) => ({ id: s.id, status: s.status })) });
  }
  if (!fresh.length) return 0;
  if (patched(ONE_WRITE_STEP)) return recordInOneStep(input, state, fresh);
  return applyScansOneByOne(input, state, fresh);
}

/** The per-write path of runs recorded before ONE_WRITE_STEP: the scans, then each mark and event, one activity each. */
async function applyScansOneByOne(input: ShipmentWorkflowInput, state: TrackingState, fresh: Scan[]): Promise<number> {
  const acts = shipmentActivities();
  const withIds = fresh.map((s) => ({ ...s, trackingEventId: workflowId('trk') }));
  try {
    await acts.recordScans({ shipmentId: input.shipmentId, scans: withIds });
  } catch (err) {
    if (failureType(err) !== CODE.invalid_data) throw err;
    refuseScans(input, state, fresh, err);
    return 0;
  }
  for (const scan of withIds) {
    state.seenScanIds.add(scan.id);
    const latest = state.latest;
    // A scan older than one already applied (carriers push out of order; a poll can bring a scan the
    // carrier recorded late) is history: stored and announced, but the parcel is where the newest
    // scan put it, so neither status goes back (an exception does not turn into in_transit again).
    // Delivered still ends the shipment, whenever its scan arrives (spec §3 rule 4).
    const older = latest !== undefined && Date.parse(scan.occurredAt) < Date.parse(latest.occurredAt) && scan.status !== 'delivered';
    if (older) {
      await emitEvent(input, 'tracking.updated', input.shipmentId, trackingUpdate(input, state, latest.status, scan));
      continue;
    }
    state.latest = { occurredAt: scan.occurredAt, status: scan.status };
    const next = applyScan(state.status, scan.status);
    const changed = next !== state.status && !isTerminal(state.status);
    await acts.markShipment({
      shipmentId: input.shipmentId,
      changes: { trackingStatus: scan.status, ...(changed ? { status: next } : {}) },
    });
    await emitEvent(input, 'tracking.updated', input.shipmentId, trackingUpdate(input, state, scan.status, scan));
    if (changed) {
      state.status = next;
      upsertSearchAttributes([{ key: SA.ShipmentStatus, value: next }]);
      await emitStatusEvent(input, next);
    }
  }
  return fresh.length;
}

/** The scans, oldest first, that follow delivery: all of them once delivered, else those after a delivered scan. */
function scansAfterDelivery(status: ShipmentStatus, fresh: Scan[]): Scan[] {
  if (status === 'delivered') return fresh;
  const delivered = fresh.findIndex((s) => s.status === 'delivered');
  return delivered < 0 ? [] : fresh.slice(delivered + 1);
}

/** Records an event once, under an id made here in the workflow. */
export async function emitEvent(input: PurchaseInput, type: EventType, shipmentId: string | null, object?: unknown) {
  await shipmentActivities().recordEvent({
    id: workflowId('evt'),
    type,
    accountId: input.accountId,
    livemode: input.livemode,
    shipmentId,
    createdAt: new Date(Date.now()).toISOString(),
    object,
  });
}

export async function emitStatusEvent(input: PurchaseInput, status: ShipmentStatus) {
  const type = eventForStatus(status);
  if (type) await emitEvent(input, type, input.shipmentId);
}
