/**
 * The patch ledger: every id a workflow passes to `patched()` or `deprecatePatch()`, and why.
 *
 * A change to the commands of a workflow that has runs open (a shipment lives for weeks) goes
 * through three steps, one deploy each:
 *   1. `patched(id)`: new runs take the new branch and record the id's marker; runs recorded
 *      before it replay the old branch.
 *   2. `deprecatePatch(id)`: once no run recorded before step 1 is open, the old branch goes; the
 *      call still records the marker, so runs recorded under step 1 keep replaying.
 *   3. Removal: once no run recorded before step 2 is open, the call and its entry here go.
 * Every `patched()` and `deprecatePatch()` call in workflows/ names an id from this ledger, as a
 * string literal or a constant of its file (test/workflows/patch-ledger.test.ts checks it).
 */
export interface PatchEntry {
  /** The id passed to `patched()` / `deprecatePatch()`: lower-case words joined by hyphens. */
  id: string;
  /** The day the `patched()` call was deployed (ISO 8601, `YYYY-MM-DD`). */
  date: `${number}-${number}-${number}`;
  /** What the new branch does differently, and why. */
  why: string;
  /** When it may move to `deprecatePatch()` (and from there be removed): the runs that must have closed first. */
  deprecateWhen: string;
}

export const PATCHES: readonly PatchEntry[] = [
  {
    id: 'sweep-unconfirmed-pickups',
    date: '2026-11-29',
    why: 'The orphan sweep gains a last step: pickups whose carrier answer was lost are settled (UPS by Pickup Pending Status) or left for an operator.',
    deprecateWhen: 'no orphan sweep run started before the deploy is open (each ends within a minute of its start)',
  },
  {
    id: 'tracking-history-bound',
    date: '2026-11-29',
    why: 'A tracking run continues as new once its history reaches TRACKING_HISTORY_EVENTS (workflows/tracking.ts), so that a worker replays a short history after its cache evicted the workflow.',
    deprecateWhen: 'no shipment run started before the deploy is open (a run ends at delivery, a void, a quiet stop after 30 days, or when it continues as new)',
  },
  {
    id: 'tracking-own-queue',
    date: '2026-11-29',
    why: 'A shipment continues as new onto the `tracking` task queue after the first wait of its tracking, so that the workflow tasks of the parcels in flight never queue ahead of a purchase on `shipments`.',
    deprecateWhen: 'no shipment run started before the deploy is open (as tracking-history-bound)',
  },
  {
    id: 'tracking-unknown-stop',
    date: '2026-11-29',
    why: 'Tracking of a number the carrier never reported stops after TRACKING_UNKNOWN_STOP_MS (10 days) instead of the 30-day quiet period.',
    deprecateWhen: 'no shipment run started before the deploy is open (as tracking-history-bound)',
  },
  {
    id: 'tracking-one-write-step',
    date: '2026-11-30',
    why: "A poll's or a push's new scans are recorded in one activity, recordTracking (the scans, the shipment's marks and the events, in the order the workflow planned them), instead of one activity per write: each workflow task of an evicted workflow replays its whole history, so one task instead of several per poll that finds scans. The events' ids and times are the task's time plus their place, so they still list in order.",
    deprecateWhen: 'no shipment run started before the deploy is open (as tracking-history-bound)',
  },
  {
    id: 'tracking-short-history',
    date: '2026-11-30',
    why: 'A tracking run continues as new once its history reaches TRACKING_SHORT_HISTORY_EVENTS (60) instead of TRACKING_HISTORY_EVENTS (200; workflows/tracking.ts): a worker whose cache evicted the workflow replays some 35 events at the median instead of some 160.',
    deprecateWhen: 'no shipment run started before the deploy is open (as tracking-history-bound); tracking-history-bound can then be removed, no open run having recorded its marker',
  },
  {
    id: 'tracking-local-poll',
    date: '2026-11-30',
    why: "The tracking loop's poll (pollTracking) runs as a local activity of the workflow's own worker, so a turn that finds nothing is one workflow task and some 6 history events instead of two tasks, an activity dispatched through the server and 11 events. The poll takes its place in the carrier's tracking rate from a window in PostgreSQL (activities/tracking-admission.ts) instead of the carrier's tracking queue's limit. The write of the scans it finds stays an activity.",
    deprecateWhen: 'no shipment run started before the deploy is open (as tracking-history-bound)',
  },
  {
    id: 'buy-backoff-from-send',
    date: '2026-12-01',
    why: "A buy's retry waits what is left of its backoff once the time since the failed attempt was sent is counted (workflows/purchase.ts: backoffFrom), so an attempt that timed out or lost its worker, and whose lookup found nothing, is followed at once by the next, without a timer; attempts stay at least the backoff apart from send to send.",
    deprecateWhen: 'no shipment run started before the deploy is open that is still buying (a purchase ends within its deadline, PURCHASE_DEADLINE_MS)',
  },
];
