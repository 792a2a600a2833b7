/**
 * The USPS mapping: pure functions from our types to USPS's document-shaped requests and from its
 * answers to ours. No I/O here; `client.ts` does the HTTP. Split by operation:
 * - `services.ts`: the service table and the unit conversions;
 * - `address.ts`: the address limits and the label address;
 * - `rating.ts`: price searches; `labels.ts`: purchase, reprint, cancel; `tracking.ts`: scans;
 * - `errors.ts`: error classification and the cancel refusals; `addresses.ts`: the address check;
 * - this file: the OAuth token and the payment authorization.
 */
import { isRecord } from '../decode.js';
import type { UspsPaymentAuthorizationRequest, UspsTokenRequest } from './schemas.js';

export * from './services.js';
export * from './address.js';
export * from './rating.js';
export * from './labels.js';
export * from './tracking.js';
export * from './errors.js';
export * from './addresses.js';
export * from './extras.js';
export * from './international.js';
export * from './returns.js';

/** The client-credentials grant, as a JSON body (the getting-started guide accepts JSON or a form). */
export function buildUspsTokenRequest(clientId: string, clientSecret: string): UspsTokenRequest {
  return { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
}

export interface UspsToken {
  accessToken: string;
  /** Seconds the token lives, as USPS said it (a number, or a string of digits). */
  expiresInSeconds: number;
}

/** A token answer; undefined without a token or a readable lifetime. */
export function parseUspsTokenResponse(body: unknown): UspsToken | undefined {
  if (!isRecord(body) || typeof body.access_token !== 'string' || body.access_token === '') return undefined;
  const raw = body.expires_in;
  const seconds = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return { accessToken: body.access_token, expiresInSeconds: seconds };
}

export interface UspsPaymentSettings {
  crid: string;
  mid: string;
  manifestMid: string;
  /** The Enterprise Payment System account the postage is paid from. */
  accountNumber: string;
}

/**
 * The payment authorization: the two roles a label needs, as the document's minimum request has
 * them. The payer pays from the EPS account; the label owner supplies the MID ranges.
 */
export function buildUspsPaymentAuthorizationRequest(s: UspsPaymentSettings): UspsPaymentAuthorizationRequest {
  return {
    roles: [
      { roleName: 'PAYER', CRID: s.crid, MID: s.mid, manifestMID: s.manifestMid, accountType: 'EPS', accountNumber: s.accountNumber },
      { roleName: 'LABEL_OWNER', CRID: s.crid, MID: s.mid, manifestMID: s.manifestMid },
    ],
  };
}

/** The payment authorization token, from its answer. */
export function parseUspsPaymentAuthorization(body: unknown): string | undefined {
  return isRecord(body) && typeof body.paymentAuthorizationToken === 'string' && body.paymentAuthorizationToken !== ''
    ? body.paymentAuthorizationToken
    : undefined;
}

/**
 * How long a payment authorization token is used: "valid for eight hours after issuance", and the
 * payments API "should not be called for every label created during this timeframe". We stop using
 * one ten minutes early, so no purchase carries a token that expires on the way.
 */
export const USPS_PAYMENT_TOKEN_LIFETIME_MS = 8 * 60 * 60 * 1000 - 10 * 60 * 1000;
