/**
 * Webhook signatures (spec §6): `X-SVC-Signature: t=<unix seconds>,v1=<hex>` where the hex is
 * HMAC-SHA256, keyed with the endpoint's whole `whsec_…` secret, over `<t>.` followed by the raw body
 * bytes. Uses node:crypto, so it stays out of `domain/index.ts` (which workflows bundle): import it
 * by this path.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_TOLERANCE_SECONDS } from './webhooks.js';

function hmacHex(body: string | Buffer, secret: string, timestampSeconds: number): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`, 'utf8').update(body).digest('hex');
}

/** The header value for a delivery sent at `timestampSeconds`; a string body is signed as UTF-8. */
export function signWebhook(body: string | Buffer, secret: string, timestampSeconds: number): string {
  const t = Math.floor(timestampSeconds);
  return `t=${t},v1=${hmacHex(body, secret, t)}`;
}

/**
 * A receiver's check: true only when one of the header's `v1` signatures is the HMAC of `t.` + the
 * raw body under `secret` (compared in constant time) and `t` is within `toleranceSeconds` of now
 * (either way, so a replay is refused once five minutes have passed and a skewed clock is allowed
 * the same margin). Returns false rather than throwing for every malformed or stale header.
 *
 * Pass the body exactly as received (the Buffer, or the string decoded from it), never a re-encoded
 * copy of parsed JSON.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  signatureHeader: string | undefined | null,
  secret: string,
  toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS,
  nowSeconds = Date.now() / 1000,
): boolean {
  if (typeof signatureHeader !== 'string' || !secret) return false;
  let t: number | undefined;
  const candidates: Buffer[] = [];
  for (const part of signatureHeader.split(',')) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (eq < 0) continue;
    if (name === 't' && /^\d{1,15}$/.test(value)) t = Number(value);
    // A receiver may see several v1 values while a secret is rotated; any one of them may match.
    if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) candidates.push(Buffer.from(value, 'hex'));
  }
  if (t === undefined || !candidates.length) return false;
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(rawBody, secret, t), 'hex');
  let match = false;
  // Compare with every candidate (no early exit), so timing says nothing about which one matched.
  for (const candidate of candidates) match = timingSafeEqual(candidate, expected) || match;
  return match;
}
