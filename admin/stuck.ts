import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/index.js';
import proto from '@temporalio/proto';
import { SHIPMENT_WORKFLOW } from '../contract/index.js';

export interface StuckShipment {
  shipment_id: string;
  status: string;
  account_id: string | null;
  carrier: string | null;
  reference: string | null;
  livemode: boolean | null;
  /** Since when the purchase (pending) or the void's oldest pending step (voiding) has waited. */
  waiting_since: string;
  details: string | null;
  pending_activities: Array<{
    activity: string;
    task_queue: string | null;
    attempt: number;
    last_failure: string | null;
    next_attempt_at: string | null;
  }>;
  ui_url: string;
  /**
   * Set when the shipment's latest run has closed with the shipment still `pending` or `voiding` (an
   * operator's Terminate, a failed or timed-out run): how and when it closed, and whether it was
   * itself a run that the sweep had started to settle the shipment. Null for a running workflow.
   */
  run_closed: { as: string; at: string; settling_run: boolean } | null;
}

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** A Temporal timestamp (an event's time, an activity's schedule) as a Date, to the millisecond; null when unset. */
export const toDate = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): Date | null =>
  t?.seconds === undefined || t.seconds === null ? null : new Date(Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6));

/**
 * Shipments whose purchase or void has been under way longer than `olderThanMs`, found through the
 * search attributes (ShipmentStatus) and explained by each workflow's pending activities. Also those
 * whose latest run closed mid-way (`run_closed`): no workflow runs for them until the sweep starts
 * one that settles them, and a list of running workflows alone would not show them.
 */
export async function findStuckShipments(
  client: Client,
  o: { olderThanMs: number; now?: Date; uiUrl: string; namespace: string; accountId?: string },
): Promise<StuckShipment[]> {
  const now = o.now ?? new Date();
  const cutoff = new Date(now.getTime() - o.olderThanMs);
  const query = (execution: string) =>
    [
      `WorkflowType = '${SHIPMENT_WORKFLOW}'`,
      execution,
      `ShipmentStatus IN ('pending', 'voiding')`,
      ...(o.accountId ? [`AccountId = '${o.accountId.replace(/'/g, '')}'`] : []),
    ].join(' AND ');
  const stuck: StuckShipment[] = [];
  for await (const wf of client.workflow.list({ query: query(`ExecutionStatus = 'Running'`) })) {
    const handle = client.workflow.getHandle(wf.workflowId, wf.runId);
    const description = await handle.describe();
    const status = String(attribute(description, 'ShipmentStatus'));
    const raw = description.raw;
    const pending = raw.pendingActivities ?? [];
    const scheduled = pending.map((a) => toDate(a.scheduledTime)).filter((d): d is Date => d !== null);
    const since =
      status === 'pending'
        ? wf.startTime
        : ((await handle.fetchHistory().then((h) => voidAcceptedAt(h.events ?? []), () => null)) ??
          (scheduled.length ? new Date(Math.min(...scheduled.map((d) => d.getTime()))) : now));
    if (since > cutoff) continue;
    stuck.push({
      ...listed(wf, description, status, since, o),
      // A shipment whose worker is down must not hold the whole list up (a query waits for a worker).
      details: await client.connection.withDeadline(Date.now() + DETAILS_DEADLINE_MS, () => currentDetails(handle)),
      pending_activities: pending.map((a) => ({
        activity: a.activityType?.name ?? 'unknown',
        task_queue: (a as { activityOptions?: { taskQueue?: { name?: string } } }).activityOptions?.taskQueue?.name ?? null,
        attempt: a.attempt ?? 0,
        last_failure: a.lastFailure?.message ?? null,
        next_attempt_at: toDate(a.nextAttemptScheduleTime)?.toISOString() ?? null,
      })),
      run_closed: null,
    });
  }
  for await (const wf of client.workflow.list({ query: query(`ExecutionStatus IN ('Terminated', 'Failed', 'TimedOut')`) })) {
    // Only the shipment's latest run counts: after a later one (settling, or settled) it is history.
    const latest = await client.workflow.getHandle(wf.workflowId).describe();
    if (latest.runId !== wf.runId || !wf.closeTime) continue;
    const status = String(attribute(latest, 'ShipmentStatus'));
    const events = (await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory()).events ?? [];
    const since = status === 'pending' ? wf.startTime : (voidAcceptedAt(events) ?? wf.startTime);
    if (since > cutoff) continue;
    const closed = { as: wf.status.name.toLowerCase().replace('_', ' '), at: wf.closeTime.toISOString(), settling_run: await settlingRun(client, events[0]) };
    stuck.push({ ...listed(wf, latest, status, since, o), details: closedRunDetails(status, closed), pending_activities: [], run_closed: closed });
  }
  return stuck.sort((a, b) => a.waiting_since.localeCompare(b.waiting_since));
}

type Described = { typedSearchAttributes: WorkflowExecutionInfo['typedSearchAttributes'] };

function attribute(d: Described, name: string): unknown {
  return d.typedSearchAttributes.getAll().find((p) => p.key.name === name)?.value ?? null;
}

/** What every entry says of its shipment, from the workflow's search attributes. */
function listed(wf: WorkflowExecutionInfo, d: Described, status: string, since: Date, o: { uiUrl: string; namespace: string }) {
  return {
    shipment_id: wf.workflowId.replace(/^shipment\//, ''),
    status,
    account_id: attribute(d, 'AccountId') as string | null,
    carrier: attribute(d, 'Carrier') as string | null,
    reference: attribute(d, 'Reference') as string | null,
    livemode: attribute(d, 'Livemode') as boolean | null,
    waiting_since: since.toISOString(),
    ui_url: `${o.uiUrl}/namespaces/${encodeURIComponent(o.namespace)}/workflows/${encodeURIComponent(wf.workflowId)}/${wf.runId}/history`,
  };
}

/** Whether a closed run was one the sweep started to settle its shipment (its input carries `settle`). */
async function settlingRun(client: Client, started: HistoryEvent | undefined): Promise<boolean> {
  const payloads = started?.workflowExecutionStartedEventAttributes?.input?.payloads;
  try {
    const [input] = (await decodeArrayFromPayloads(client.workflow.options.loadedDataConverter, payloads)) as [{ settle?: unknown }?];
    return Boolean(input?.settle);
  } catch {
    return false; // an input this client cannot decode (another key): say what the sweep will do
  }
}

/**
 * "now:" for a shipment whose latest run closed mid-way. The sweep settles it in a new run once the
 * run has been closed `ORPHAN_SWEEP_AFTER_MS`; a run it started to settle it is never followed by
 * another on its own, so that case needs an operator.
 */
export function closedRunDetails(status: string, closed: { as: string; at: string; settling_run: boolean }): string {
  const what = status === 'voiding' ? 'void' : 'purchase';
  const ended = closed.as === 'terminated' ? 'was terminated' : closed.as; // failed, timed out
  return closed.settling_run
    ? `the run settling this ${what} ${ended} at ${closed.at} before it settled it, and no run follows it: ` +
        '`npm run --silent ops -- reconcile --older-than 0s` starts another'
    : `its run ${ended} at ${closed.at} mid-${what}, and no workflow runs for it: the sweep Schedule settles it in a ` +
        'new run once the run has been closed ORPHAN_SWEEP_AFTER_MS (2 min by default)';
}

/** How long the list waits for a worker to answer one shipment's current details. */
const DETAILS_DEADLINE_MS = 5000;

const ACCEPTED = proto.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED;

/**
 * When the void under way was accepted: the last accepted update of a voiding shipment's run is its
 * void (a second one is refused before it is written). A void waits on timers between attempts, so
 * its pending activities alone say "nothing waits" most of the time, and would list no void.
 */
function voidAcceptedAt(events: HistoryEvent[]): Date | null {
  return toDate(events.filter((e) => e.eventType === ACCEPTED).at(-1)?.eventTime);
}

/** The workflow's own account of what it is doing (its current details), when a worker can answer. */
export async function currentDetails(handle: { query<T>(name: string): Promise<T> }): Promise<string | null> {
  try {
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    return metadata.currentDetails || null;
  } catch {
    return null; // no worker running: the pending activities still say why it waits
  }
}

/** "10m", "90s", "2h", "1d" → milliseconds. */
export function parseAge(text: string): number | null {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) return null;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** `ops stuck`'s text: per shipment, what it is, how long it has waited, what it does now, why. */
export function formatStuck(stuck: StuckShipment[], now: Date = new Date()): string {
  const lines: string[] = [];
  for (const s of stuck) {
    const waited = Math.max(0, Math.round((now.getTime() - Date.parse(s.waiting_since)) / 1000));
    const age = waited >= 3600 ? `${Math.floor(waited / 3600)}h${Math.floor((waited % 3600) / 60)}m` : waited >= 60 ? `${Math.floor(waited / 60)}m${waited % 60}s` : `${waited}s`;
    lines.push(
      `${s.shipment_id}  ${s.status} for ${age} (since ${s.waiting_since})  carrier ${s.carrier ?? '-'}  account ${s.account_id ?? '-'}` +
        (s.reference ? `  reference ${s.reference}` : ''),
    );
    lines.push(`  now: ${s.details ?? '(no worker answered in time: see the pending steps below, and the workers)'}`);
    for (const a of s.pending_activities) {
      // The activity's own attempt; the workflow's retries of the step are counted in "now".
      lines.push(`  pending step: ${a.activity} on ${a.task_queue ?? '?'}, its attempt ${a.attempt}, last error: ${a.last_failure ?? 'none'}`);
    }
    lines.push(`  ${s.ui_url}`);
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
