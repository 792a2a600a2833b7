import { ApplicationFailure } from '@temporalio/common';
import { request } from 'undici';
import { parseRetryAfter } from '../carriers/index.js';
import { CODE } from '../domain/index.js';

type Json = { error?: { code?: unknown; message?: unknown }; data?: Array<{ id?: unknown; status?: unknown }> } | null;

/** A failure retrying can fix: the processor's Retry-After, when it gave one, decides the wait. */
function retryable(message: string, retryAfterMs?: number): ApplicationFailure {
  return ApplicationFailure.create({ type: CODE.card_processor_retryable, message, nonRetryable: false, nextRetryDelay: retryAfterMs });
}

/** The processor's final word (a 4xx other than a decline): retrying the same request cannot help. */
function refused(message: string, details: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ type: CODE.card_processor_error, message, nonRetryable: true, details: [details] });
}

/**
 * The card processor, for card-funded accounts: authorize at purchase, capture on success, void on
 * failure, refund on void. Every call is idempotent at the processor (by our shipment id). Errors are
 * classified as the carrier HTTP layer classifies them: network errors, 409, 429, 5xx and
 * unreadable answers retry; a decline and any other 4xx are final, with the processor's message,
 * except on the refund of a captured payment, which is owed (see `act`).
 */
export function createPaymentActivities(deps: { processorUrl: string; timeoutMs?: number }) {
  const timeout = deps.timeoutMs ?? 10_000;

  async function send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: Json }> {
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const res = await request(`${deps.processorUrl}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      status = res.statusCode;
      headers = res.headers;
      text = await res.body.text();
    } catch (err) {
      // Every call is idempotent by reference, so a lost answer is simply asked again.
      throw retryable(`card processor ${method} ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
    let json: Json = null;
    try {
      json = JSON.parse(text) as Json;
    } catch {
      json = null;
    }
    if (status === 409 || status === 429 || status >= 500) {
      throw retryable(`card processor answered ${status} on ${method} ${path}`, parseRetryAfter(headers['retry-after']));
    }
    if (status >= 200 && status < 300 && (json === null || typeof json !== 'object')) {
      throw retryable(`card processor answered ${status} on ${method} ${path} with a body we cannot read`);
    }
    return { status, json };
  }

  function processorMessage(json: Json, fallback: string): string {
    const message = json?.error?.message;
    return typeof message === 'string' && message !== '' ? message : fallback;
  }

  function refusal(json: Json, status: number, what: string, reference: string): ApplicationFailure {
    const code = typeof json?.error?.code === 'string' ? json.error.code : null;
    return refused(`card processor refused to ${what}: ${processorMessage(json, `HTTP ${status}`)}`, { status, code, reference });
  }

  async function authorization(reference: string): Promise<{ id: string; status: unknown } | null> {
    const { status, json } = await send('GET', `/authorizations?reference=${encodeURIComponent(reference)}`);
    if (status >= 400) throw refusal(json, status, 'look up the authorization', reference);
    const data = Array.isArray(json?.data) ? json.data : null;
    if (!data) throw retryable('card processor answered the lookup with a body we cannot read');
    const id = data[0]?.id;
    return typeof id === 'string' ? { id, status: data[0]?.status } : null;
  }

  async function act(reference: string, action: 'capture' | 'void' | 'refund'): Promise<void> {
    const found = await authorization(reference);
    if (!found) {
      // Nothing authorized: a void (after a failed authorization) has nothing to undo. A capture or a
      // refund with nothing to act on is a broken purchase, never a silent success.
      if (action === 'void') return;
      throw refused(`no card authorization for ${reference} to ${action}`, { status: null, code: 'authorization_not_found', reference });
    }
    const { status, json } = await send('POST', `/authorizations/${encodeURIComponent(found.id)}/${action}`, {});
    if (status < 400) return;
    // The refund of a captured payment is owed (a void's carrier has cancelled the label, or a stopped
    // purchase is undone): a refusal is asked again under the activity's retry policy, its message the
    // last error operators see (`ops stuck`). As final, it would fail the void with a 409 and leave
    // the shipment voiding, the card charged. A refund of a payment never captured stays refused.
    if (action === 'refund' && found.status === 'captured') throw retryable(refusal(json, status, action, reference).message);
    throw refusal(json, status, action, reference);
  }

  return {
    async authorizeCard(p: { accountId: string; shipmentId: string; amount: number; currency: string }): Promise<void> {
      const { status, json } = await send('POST', '/authorizations', {
        customer: p.accountId,
        amount: p.amount,
        currency: p.currency,
        reference: p.shipmentId,
      });
      if (status === 402) {
        throw ApplicationFailure.nonRetryable(processorMessage(json, 'The card was declined.'), CODE.card_declined);
      }
      if (status >= 400) throw refusal(json, status, 'authorize', p.shipmentId);
    },
    captureCard: (p: { shipmentId: string }) => act(p.shipmentId, 'capture'),
    voidCard: (p: { shipmentId: string }) => act(p.shipmentId, 'void'),
    refundCard: (p: { shipmentId: string }) => act(p.shipmentId, 'refund'),
  };
}
export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
