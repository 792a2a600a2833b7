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
