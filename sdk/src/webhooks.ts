import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { Event } from './types.js';

/**
 * Checks a delivery's `X-SVC-Signature: t=<unix>,v1=<hex>` (HMAC-SHA256 with the endpoint's
 * `whsec_…` secret over `<t>.` and the raw body) and its age, then returns the typed event.
 * Pass the body exactly as received (Buffer or string), never re-encoded JSON. Throws
 * `WebhookVerificationError` saying what is wrong. The fourth argument is the options, or the
 * tolerance in seconds alone (`verifyWebhook(body, header, secret, 600)`), as the service's own
 * helper takes it.
 */
export function verifyWebhook(
  rawBody: string | Buffer | Uint8Array,
  signatureHeader: string | string[] | null | undefined,
  secret: string,
  options: number | { toleranceSeconds?: number; nowSeconds?: number } = {},
): Event {
  if (typeof options === 'number') options = { toleranceSeconds: options };
  const tolerance = options.toleranceSeconds ?? 300;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError(`verifyWebhook: the tolerance must be a number of seconds, not ${String(tolerance)}.`);
  }
  const now = options.nowSeconds ?? Date.now() / 1000;
  if (!secret) throw new WebhookVerificationError('No webhook secret given (whsec_…).');
  const header = Array.isArray(signatureHeader) ? signatureHeader.join(',') : signatureHeader;
  if (typeof header !== 'string' || !header) throw new WebhookVerificationError('The X-SVC-Signature header is missing.');
  // A body parsed before it got here (express.json() on the route) cannot be checked: the bytes signed are gone.
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError(
      'The webhook body must be the raw request body, as a string or a Buffer, not a parsed object: take it before any JSON parsing (express.raw({ type: "application/json" }) on the route).',
    );
  }
  let t: number | undefined;
  const candidates: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't' && /^\d{1,15}$/.test(value)) t = Number(value);
    if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) candidates.push(Buffer.from(value, 'hex'));
  }
  if (t === undefined || !candidates.length) throw new WebhookVerificationError('The X-SVC-Signature header is malformed.');
  if (Math.abs(now - t) > tolerance) {
    throw new WebhookVerificationError(`The signature's timestamp is more than ${tolerance} s from now (a replay, or a skewed clock).`);
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const expected = createHmac('sha256', secret).update(`${t}.`, 'utf8').update(body).digest();
  let match = false;
  for (const candidate of candidates) match = timingSafeEqual(candidate, expected) || match;
  if (!match) throw new WebhookVerificationError('The signature does not match the body and secret.');
  try {
    return JSON.parse(body.toString('utf8')) as Event;
  } catch {
    throw new WebhookVerificationError('The body is not JSON.');
  }
}
