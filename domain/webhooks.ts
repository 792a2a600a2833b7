/**
 * Webhook rules without I/O (spec §6 and §8; contract: Webhooks): the retry schedule, the headers,
 * the delivery body, and which URLs and addresses a delivery may go to. Signing needs node:crypto and
 * lives in `webhook-signature.ts`, outside this index (workflows bundle the index).
 */
import { isPublicAddress, parseIp } from './cidr.js';
import { CODE } from './errors.js';

export { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from './webhook-schedule.js';
/** A 2xx within this long acknowledges a delivery. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Receivers reject a signature whose `t` is older than this (spec §6 signature rule 4). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Header names as sent (contract: Webhooks); receivers see them case-insensitively. */
export const WEBHOOK_HEADERS = {
  signature: 'X-SVC-Signature',
  eventId: 'X-SVC-Event-Id',
  attempt: 'X-SVC-Delivery-Attempt',
} as const;

/** `type` of the failure a delivery workflow ends with once every attempt failed. */
export const WEBHOOK_DELIVERY_FAILED = CODE.webhook_delivery_failed;

/** The delivery body: the event as `GET /events/{id}` shows it, so receivers can reconcile. */
export function eventPayload(e: { id: string; type: string; createdAt: Date; livemode: boolean; data: unknown }) {
  return {
    id: e.id,
    object: 'event',
    type: e.type,
    created_at: e.createdAt.toISOString(),
    livemode: e.livemode,
    data: e.data,
  };
}

export type WebhookUrlCheck = { ok: true; url: URL; host: string; ipLiteral: boolean } | { ok: false; message: string };

/**
 * The shape rules of an endpoint URL: absolute, https, no credentials; a literal address or a
 * `localhost` name must be public. Whether a name resolves to public addresses is checked by the
 * callers that can do I/O. `allowPrivate` (WEBHOOK_ALLOW_PRIVATE) also allows plain http.
 */
export function checkWebhookUrl(text: string, options: { allowPrivate: boolean }): WebhookUrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'must be an absolute URL' };
  }
  const schemes = options.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return { ok: false, message: options.allowPrivate ? 'must use https or http' : 'must use https' };
  if (url.username || url.password) return { ok: false, message: 'must not contain credentials' };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) return { ok: false, message: 'must name a host' };
  const ipLiteral = parseIp(host) !== null;
  if (!options.allowPrivate) {
    const local = /(^|\.)localhost\.?$/i.test(host);
    if (local || (ipLiteral && !isPublicAddress(host))) return { ok: false, message: 'must resolve to a public address' };
  }
  return { ok: true, url, host, ipLiteral };
}
