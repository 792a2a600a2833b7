import { createHash, randomBytes } from 'node:crypto';
import { claimIdempotencyKey, releaseIdempotencyKey, saveIdempotentResponse } from '../../db/index.js';
import { ApiError, CODE } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { IdempotentRequest, type Settled } from '../idempotency.js';
import { field, type Form } from './forms.js';

/**
 * The portal's forms that buy or void carry an idempotency key of their own, made when the form is
 * drawn and sent with it (`form_key`): a double click, a reload that posts again or a second tab
 * sends the same key, which joins the first request instead of buying or voiding twice, by the
 * API's own protocol (contract: Idempotency) in the account's and mode's key space. The form's
 * body, as the API would take it, is the request's fingerprint: the same form changed and posted
 * again with its old key is `idempotency_key_reused`, said on the page.
 */

const PREFIX = 'portal_';
const SHAPE = /^portal_[A-Za-z0-9_-]{24}$/;

/** A new form's key: 144 random bits, within the API's key rules (printable ASCII, at most 255). */
export const newFormKey = () => `${PREFIX}${randomBytes(18).toString('base64url')}`;

/** The key a posted form carries, if it is one the portal made. */
export function formKeyOf(form: Form | undefined): string | undefined {
  const key = field(form, 'form_key');
  return SHAPE.test(key) ? key : undefined;
}

/** The form's request under its key: the action (the page and what it does) and the body it stands for. */
export function formRequest(owner: { accountId: string; livemode: boolean }, key: string, action: string, body: unknown): IdempotentRequest {
  const fingerprint = createHash('sha256').update(`${action} ${JSON.stringify(body)}`).digest('hex');
  return new IdempotentRequest({ ...owner, key }, fingerprint, {});
}

/**
 * Claims the key for work that a repeat joins (a void: the same Temporal update): the claim, a
 * repeat joining it, or the stored answer of the first. A different request is refused.
 */
export async function claimFormKey(ctx: AppContext, idem: IdempotentRequest): Promise<Settled> {
  const claim = await claimIdempotencyKey(ctx.db, { ...idem.scope, fingerprint: idem.fingerprint, now: ctx.now() });
  return idem.settle(claim);
}

/**
 * After a refusal: the key is freed (contract: Idempotency, rule 4), so the same form may be sent
 * again, as the API's hook frees it; not after a 503, when the work may still run and must be joined.
 */
export async function releaseFormKey(ctx: AppContext, idem: IdempotentRequest, err: unknown): Promise<void> {
  if (!(err instanceof ApiError) || err.code === CODE.service_unavailable) return;
  if (!idem.owner && !(idem.replayed && !idem.stored)) return;
  await releaseIdempotencyKey(ctx.db, idem.scope, idem.fingerprint, idem.claimedAt);
}

/** Keeps the final answer for a repeat of the form, as the API keeps a 200. */
export async function saveFormAnswer(ctx: AppContext, idem: IdempotentRequest, status: number, body: unknown): Promise<void> {
  if (!idem.stored) await saveIdempotentResponse(ctx.db, idem.scope, status, JSON.stringify(body));
}
