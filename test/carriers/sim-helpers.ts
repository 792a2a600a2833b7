import type { Address, Parcel } from '../../domain/index.js';
import { CARRIER_MODULES, defaultCarrierBaseUrls, type CarrierAdapter, type PurchaseRequest, type SendLedger } from '../../carriers/index.js';

/** Test helpers for the carrier simulator's control API. */
export async function simCall(baseUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Left as text: some tests look at non-JSON answers.
  }
  return { status: res.status, body: parsed };
}

export async function addFault(baseUrl: string, fault: Record<string, unknown>): Promise<void> {
  const res = await simCall(baseUrl, 'POST', '/_sim/faults', fault);
  if (res.status !== 201) throw new Error(`fault not accepted: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function simPurchases(baseUrl: string, reference: string): Promise<any[]> {
  return (await simCall(baseUrl, 'GET', `/_sim/purchases?reference=${encodeURIComponent(reference)}`)).body.data;
}

export async function addSimScan(baseUrl: string, trackingNumber: string, status: string): Promise<void> {
  const res = await simCall(baseUrl, 'POST', '/_sim/scans', { tracking_number: trackingNumber, status });
  if (res.status !== 201) throw new Error(`scan not accepted: ${res.status} ${JSON.stringify(res.body)}`);
}

let counter = 0;
export function uniqueRef(prefix = 'ref'): string {
  counter += 1;
  return `${prefix}_${Date.now().toString(36)}_${counter}_${Math.random().toString(36).slice(2, 8)}`;
}

export const FROM: Address = { name: 'Ada Sender', line1: '1 High Street', city: 'London', postcode: 'EC1A 1BB', country: 'GB' };
export const TO: Address = { name: 'Rita Recipient', line1: '2 Low Road', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' };
export const TO_FRANCE: Address = { name: 'Rémi Destinataire', line1: '3 Rue Haute', city: 'Paris', postcode: '75001', country: 'FR' };
export const PARCEL: Parcel = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };

export function purchaseRequest(serviceCode: string, reference = uniqueRef()): PurchaseRequest {
  return { reference, serviceCode, from: FROM, to: TO, parcel: PARCEL };
}

/** The live HTTP adapter of a carrier, pointed at a simulator. */
export function httpAdapter(simUrl: string, carrierCode: string, timeoutMs = 1000): CarrierAdapter {
  const carrier = CARRIER_MODULES.find((m) => m.definition.code === carrierCode);
  if (!carrier) throw new Error(`no carrier ${carrierCode}`);
  return carrier.createHttpAdapter({ baseUrl: defaultCarrierBaseUrls(simUrl)[carrierCode], timeoutMs });
}

export async function buyRequestCount(simUrl: string, carrierCode: string): Promise<number> {
  return (await simCall(simUrl, 'GET', '/_sim/stats')).body.buy_requests[carrierCode];
}

/**
 * A purchase's ledger of sends as PostgreSQL keeps it (db/queries/carrier-sends.ts, tested against
 * the database in test/edges/carrier-sends.test.ts), here in memory: which attempt may still send,
 * and when the latest one did.
 */
export function memoryLedger() {
  let latest = 0;
  let sent: { attempt: number; at: number } | null = null;
  const marks: number[] = [];
  return {
    marks,
    attempt(attempt: number): SendLedger {
      return {
        async start(unknownSince) {
          if (latest === 0 && unknownSince) sent = { attempt: 0, at: unknownSince.getTime() };
          latest = Math.max(latest, attempt);
          const earlier = sent && sent.attempt < attempt ? sent : null;
          return { sentMsAgo: earlier ? Date.now() - earlier.at : null, superseded: latest > attempt };
        },
        async markSend() {
          if (latest !== attempt) return false;
          sent = { attempt, at: Date.now() };
          marks.push(attempt);
          return true;
        },
        async answered() {
          if (sent?.attempt === attempt) sent = null;
        },
      };
    },
  };
}
