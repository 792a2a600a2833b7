import { ApplicationFailure } from '@temporalio/common';
import { request } from 'undici';
import { FAILURE } from '../domain/index.js';

/**
 * The card processor, for card-funded accounts: authorize at purchase, capture on success, void on
 * failure, refund on void. Every call is idempotent at the processor (by our shipment id).
 */
export function createPaymentActivities(deps: { processorUrl: string; timeoutMs?: number }) {
  const timeout = deps.timeoutMs ?? 10_000;
  async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
    const res = await request(`${deps.processorUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const text = await res.body.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      // A garbled answer is retried like any other failure below.
    }
    if (res.statusCode >= 500 || res.statusCode === 429 || res.statusCode === 409 || json === null) {
      throw new Error(`card processor answered ${res.statusCode} on ${path}`);
    }
    return { status: res.statusCode, json };
  }

  async function authorizationId(reference: string): Promise<string | null> {
    const res = await request(`${deps.processorUrl}/authorizations?reference=${encodeURIComponent(reference)}`, {
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    if (res.statusCode !== 200) throw new Error(`card processor answered ${res.statusCode} on lookup`);
    const json = (await res.body.json()) as { data: Array<{ id: string }> };
    return json.data[0]?.id ?? null;
  }

  async function act(reference: string, action: 'capture' | 'void' | 'refund'): Promise<void> {
    const id = await authorizationId(reference);
    if (!id) return; // nothing was authorized, so there is nothing to capture, void or refund
    const { status, json } = await post(`/authorizations/${id}/${action}`, {});
    if (status >= 400) throw new Error(`card ${action} refused: ${json?.error?.message ?? status}`);
  }

  return {
    async authorizeCard(p: { accountId: string; shipmentId: string; amount: number; currency: string }): Promise<void> {
      const { status, json } = await post('/authorizations', {
        customer: p.accountId,
        amount: p.amount,
        currency: p.currency,
        reference: p.shipmentId,
      });
      if (status === 402) {
        throw ApplicationFailure.nonRetryable(json?.error?.message ?? 'The card was declined.', FAILURE.cardDeclined);
      }
      if (status >= 400) throw new Error(`card authorization failed with ${status}`);
    },
    captureCard: (p: { shipmentId: string }) => act(p.shipmentId, 'capture'),
    voidCard: (p: { shipmentId: string }) => act(p.shipmentId, 'void'),
    refundCard: (p: { shipmentId: string }) => act(p.shipmentId, 'refund'),
  };
}
export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
