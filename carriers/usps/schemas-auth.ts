/** USPS OAuth token and payment authorization schemas: what a label purchase needs first. */
import { Type, type Static } from '@sinclair/typebox';
import { closed, MID_PATTERN, open } from './schemas-common.js';

// ---- OAuth 2.0 client credentials (`POST /oauth2/v3/token`) --------------------------------------

export const UspsTokenRequest = Type.Object(
  {
    grant_type: Type.Literal('client_credentials'),
    client_id: Type.String({ minLength: 1 }),
    client_secret: Type.String({ minLength: 1 }),
    scope: Type.Optional(Type.String()),
  },
  closed,
);
export type UspsTokenRequest = Static<typeof UspsTokenRequest>;

/** `expires_in` is seconds; USPS has sent it both as a number and as a string of digits. */
export const UspsTokenResponse = Type.Object(
  {
    access_token: Type.String({ minLength: 1 }),
    token_type: Type.Optional(Type.String()),
    expires_in: Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: '^\\s*\\d+\\s*$' })]),
    scope: Type.Optional(Type.String()),
  },
  open,
);
export type UspsTokenResponse = Static<typeof UspsTokenResponse>;

/** RFC 6749 §5.2 error answer of the token endpoint. */
export const UspsTokenError = Type.Object({ error: Type.String(), error_description: Type.Optional(Type.String()) }, open);

// ---- Payments (`POST /payments/v3/payment-authorization`) ----------------------------------------

const CRID = Type.String({ minLength: 2, maxLength: 18 });
export const UspsPaymentRole = Type.Object(
  {
    roleName: Type.Union([Type.Literal('PAYER'), Type.Literal('LABEL_OWNER')]),
    CRID,
    MID: Type.String({ pattern: MID_PATTERN }),
    manifestMID: Type.String({ pattern: MID_PATTERN }),
    accountType: Type.Optional(Type.Literal('EPS')),
    accountNumber: Type.Optional(Type.String({ minLength: 1 })),
  },
  closed,
);
export const UspsPaymentAuthorizationRequest = Type.Object({ roles: Type.Array(UspsPaymentRole, { minItems: 1 }) }, closed);
export type UspsPaymentAuthorizationRequest = Static<typeof UspsPaymentAuthorizationRequest>;

export const UspsPaymentAuthorizationResponse = Type.Object(
  { paymentAuthorizationToken: Type.String({ minLength: 1 }), roles: Type.Optional(Type.Array(Type.Object({}, open))) },
  open,
);
export type UspsPaymentAuthorizationResponse = Static<typeof UspsPaymentAuthorizationResponse>;
