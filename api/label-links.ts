import { createHmac, timingSafeEqual } from 'node:crypto';
import { CODE, ApiError } from '../domain/index.js';

/**
 * Short-lived signed label links: HMAC-SHA256 with the server secret over shipment, format and
 * expiry. They work without the bearer key and never contain it.
 */
export function signLabelLink(secret: string, shipmentId: string, format: string, expiresAt: number): string {
  return createHmac('sha256', secret).update(`label.v1.${shipmentId}.${format}.${expiresAt}`).digest('hex');
}

/** A link's path, exactly as `labelLink` writes it. */
const labelFilePath = (shipmentId: string, format: string) =>
  `/api/v1/label-files/${encodeURIComponent(shipmentId)}/${encodeURIComponent(format)}`;

export function labelLink(o: { baseUrl: string; secret: string; shipmentId: string; format: string; expiresAt: number }): string {
  const sig = signLabelLink(o.secret, o.shipmentId, o.format, o.expiresAt);
  return `${o.baseUrl}${labelFilePath(o.shipmentId, o.format)}?expires=${o.expiresAt}&sig=${sig}`;
}

/** Seconds in decimal as `labelLink` writes them: no leading zero, no sign. */
const EXPIRES = /^(0|[1-9]\d{0,11})$/;

/**
 * Checks a link: any changed character is `invalid_signature`; a good link past its time is
 * `link_expired`. The signature covers values, so the text must be the one signed as well: `expires`
 * in its one decimal form (`01795561452` is the same number) and the path as written, not decoded
 * (`/%7apl` is `/zpl` once decoded), so that no edit of the link still works (API guide: Labels).
 */
export function checkLabelLink(o: {
  secret: string;
  shipmentId: string;
  format: string;
  /** The request's path as it came, still percent-encoded. */
  rawPath: string;
  expires: string | undefined;
  sig: string | undefined;
  nowSeconds: number;
}): void {
  const expires = o.expires ?? '';
  const given = Buffer.from(o.sig ?? '', 'utf8');
  const wanted = Buffer.from(signLabelLink(o.secret, o.shipmentId, o.format, Number(expires)), 'utf8');
  const asSigned = EXPIRES.test(expires) && o.rawPath === labelFilePath(o.shipmentId, o.format);
  const valid = asSigned && given.length === wanted.length && timingSafeEqual(given, wanted);
  if (!valid) throw new ApiError(CODE.invalid_signature, 'This label link is not valid.');
  if (Number(expires) <= o.nowSeconds) throw new ApiError(CODE.link_expired, 'This label link has expired; ask for a new one.');
}
