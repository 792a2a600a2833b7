import { createHmac, timingSafeEqual } from 'node:crypto';
import { CODE, ApiError } from '../domain/index.js';

/**
 * Short-lived signed label links: HMAC-SHA256 with the server secret over shipment, format and
 * expiry. They work without the bearer key and never contain it.
 */
export function signLabelLink(secret: string, shipmentId: string, format: string, expiresAt: number): string {
  return createHmac('sha256', secret).update(`label.v1.${shipmentId}.${format}.${expiresAt}`).digest('hex');
}

export function labelLink(o: { baseUrl: string; secret: string; shipmentId: string; format: string; expiresAt: number }): string {
  const sig = signLabelLink(o.secret, o.shipmentId, o.format, o.expiresAt);
  return `${o.baseUrl}/api/v1/label-files/${encodeURIComponent(o.shipmentId)}/${encodeURIComponent(o.format)}?expires=${o.expiresAt}&sig=${sig}`;
}

/** Checks a link: any changed character is `invalid_signature`; a good link past its time is `link_expired`. */
export function checkLabelLink(o: {
  secret: string;
  shipmentId: string;
  format: string;
  expires: string | undefined;
  sig: string | undefined;
  nowSeconds: number;
}): void {
  const expires = o.expires ?? '';
  const given = Buffer.from(o.sig ?? '', 'utf8');
  const wanted = Buffer.from(signLabelLink(o.secret, o.shipmentId, o.format, Number(expires)), 'utf8');
  const valid = /^\d{1,12}$/.test(expires) && given.length === wanted.length && timingSafeEqual(given, wanted);
  if (!valid) throw new ApiError(CODE.invalid_signature, 'This label link is not valid.');
  if (Number(expires) <= o.nowSeconds) throw new ApiError(CODE.link_expired, 'This label link has expired; ask for a new one.');
}
