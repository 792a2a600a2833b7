/**
 * USPS's OAuth token (`POST /oauth2/v3/token`, client credentials): it has no document of its own
 * (the USPS getting-started guide describes it), so its schema is ours, the one USPS schema written by
 * hand. The simulator checks the token requests and answers against it.
 */
import { Type, type Static } from '@sinclair/typebox';

const closed = { additionalProperties: false } as const;
const open = { additionalProperties: true } as const;

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
