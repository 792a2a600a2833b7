import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Scan } from '../carriers/index.js';
import type { ErrorCode } from '../domain/workflow.js';

/**
 * The shipment workflow's updates, signal and query, defined once: the workflow sets its handlers on
 * them and the API sends them (Temporal's definitions are plain names with types; no workflow code
 * runs where they are imported).
 */

/** What the purchase update answers: the API reads the shipment itself for the body. */
export type PurchaseOutcome = { ok: true } | { ok: false; code: ErrorCode; message: string };
export type VoidOutcome = { ok: true } | { ok: false; code: ErrorCode; message: string };

/**
 * The detail a purchase's capture fails with when another execution of the same run failed the
 * shipment meanwhile (a workflow task taken over from a worker too slow to finish it, whose local
 * activities still ran): the capturing execution then undoes its label and card payment.
 */
export const FAILED_MEANWHILE = { failedMeanwhile: true } as const;

/** Whether a failure's first detail is FAILED_MEANWHILE. */
export const isFailedMeanwhile = (detail: unknown): boolean => (detail as { failedMeanwhile?: unknown } | undefined)?.failedMeanwhile === true;

/** What the state query answers. */
export interface ShipmentState {
  status: string;
  trackingNumber: string | null;
  pollMs: number;
  scansSeen: number;
}

export const purchaseUpdate = defineUpdate<PurchaseOutcome>('purchase');
export const voidUpdate = defineUpdate<VoidOutcome>('void');
/** Scans pushed by a carrier webhook or the sandbox, handled without waiting for the next poll. */
export const scansSignal = defineSignal<[Scan[]]>('scans');
export const stateQuery = defineQuery<ShipmentState>('state');
/** A batch's merged label file may hold a label voided since it was made: look again (workflows/batch-label-file.ts). */
export const batchLabelStaleSignal = defineSignal('batchLabelStale');
