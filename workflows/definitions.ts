import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Scan } from '../carriers/index.js';
import { QUERY_STATE, SIGNAL_SCANS, UPDATE_PURCHASE, UPDATE_VOID, type ErrorCode } from '../domain/workflow.js';

/** What the purchase update answers: the API reads the shipment itself for the body. */
export type PurchaseOutcome = { ok: true } | { ok: false; code: ErrorCode; message: string };
export type VoidOutcome = { ok: true } | { ok: false; code: ErrorCode; message: string };

export const purchaseUpdate = defineUpdate<PurchaseOutcome>(UPDATE_PURCHASE);
export const voidUpdate = defineUpdate<VoidOutcome>(UPDATE_VOID);
/** Scans pushed by a carrier webhook or the sandbox, handled without waiting for the next poll. */
export const scansSignal = defineSignal<[Scan[]]>(SIGNAL_SCANS);
export const stateQuery = defineQuery<{ status: string; trackingNumber: string | null; pollMs: number; scansSeen: number }>(
  QUERY_STATE,
);
