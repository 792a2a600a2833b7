import { createHmac, timingSafeEqual } from 'node:crypto';
import { CODE, ApiError } from '../domain/index.js';

/**
 * Short-lived signed file links: HMAC-SHA256 with the server secret over the kind of file, its
 * owner's id, its format and the expiry. They work without the bearer key and never contain it. Each
 * kind signs under its own tag, so a link of one kind never opens a file of another.
 */
export interface SignedFileKind {
  /** What the HMAC covers first: `label.v1`. */
  tag: string;
  /** Where its links point: `/api/v1/label-files`. */
  root: string;
}

export const LABEL_FILES: SignedFileKind = { tag: 'label.v1', root: '/api/v1/label-files' };
export const BATCH_LABEL_FILES: SignedFileKind = { tag: 'batch-label.v1', root: '/api/v1/batch-label-files' };
export const SCAN_FORM_FILES: SignedFileKind = { tag: 'scan-form.v1', root: '/api/v1/scan-form-files' };
export const DOCUMENT_FILES: SignedFileKind = { tag: 'document.v1', root: '/api/v1/document-files' };

function sign(kind: SignedFileKind, secret: string, id: string, format: string, expiresAt: number): string {
  return createHmac('sha256', secret).update(`${kind.tag}.${id}.${format}.${expiresAt}`).digest('hex');
}

/** A link's path, exactly as `fileLink` writes it. */
const filePath = (kind: SignedFileKind, id: string, format: string) => `${kind.root}/${encodeURIComponent(id)}/${encodeURIComponent(format)}`;

export function fileLink(kind: SignedFileKind, o: { baseUrl: string; secret: string; id: string; format: string; expiresAt: number }): string {
  return `${o.baseUrl}${filePath(kind, o.id, o.format)}?expires=${o.expiresAt}&sig=${sign(kind, o.secret, o.id, o.format, o.expiresAt)}`;
}

/** Seconds in decimal as `fileLink` writes them: no leading zero, no sign. */
const EXPIRES = /^(0|[1-9]\d{0,11})$/;

/**
 * Checks a link: any changed character is `invalid_signature`; a good link past its time is
 * `link_expired`. The signature covers values, so the text must be the one signed as well: `expires`
 * in its one decimal form (`01795561452` is the same number) and the path as written, not decoded
 * (`/%7apl` is `/zpl` once decoded), so that no edit of the link still works (API guide: Labels).
 */
export function checkFileLink(
  kind: SignedFileKind,
  o: {
    secret: string;
    id: string;
    format: string;
    /** The request's path as it came, still percent-encoded. */
    rawPath: string;
    expires: string | undefined;
    sig: string | undefined;
    nowSeconds: number;
  },
): void {
  const expires = o.expires ?? '';
  const given = Buffer.from(o.sig ?? '', 'utf8');
  const wanted = Buffer.from(sign(kind, o.secret, o.id, o.format, Number(expires)), 'utf8');
  const asSigned = EXPIRES.test(expires) && o.rawPath === filePath(kind, o.id, o.format);
  const valid = asSigned && given.length === wanted.length && timingSafeEqual(given, wanted);
  if (!valid) throw new ApiError(CODE.invalid_signature, 'This link is not valid.');
  if (Number(expires) <= o.nowSeconds) throw new ApiError(CODE.link_expired, 'This link has expired; ask for a new one.');
}

/**
 * A link of `kind` to one file, valid for the configured time (`LABEL_URL_TTL_SECONDS`) from now: its
 * URL and when it expires, as every `…/signed` answer and the portal's download give them.
 */
export function signedFileLink(
  ctx: { config: { publicBaseUrl: string; signingSecret: string; labelUrlTtlSeconds: number }; now(): Date },
  kind: SignedFileKind,
  id: string,
  format: string,
): { url: string; expires_at: string } {
  const expiresAt = Math.floor(ctx.now().getTime() / 1000) + ctx.config.labelUrlTtlSeconds;
  return {
    url: fileLink(kind, { baseUrl: ctx.config.publicBaseUrl, secret: ctx.config.signingSecret, id, format, expiresAt }),
    expires_at: new Date(expiresAt * 1000).toISOString(),
  };
}
