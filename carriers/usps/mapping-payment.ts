import { isRecord } from '../decode.js';
import type { PaymentAuthorization } from './schemas/index.js';

type UspsPaymentAuthorizationRequest = PaymentAuthorization.Request;

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
