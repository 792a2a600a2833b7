/**
 * The carrier kit's shared HTTP client: auth (OAuth client credentials with the token cached and
 * renewed, HTTP Basic, none), the carrier's published limits (an hourly quota, 429 with and without
 * `Retry-After`), deadlines, and the one classification of a failure (retryable, definitive,
 * ambiguous), each configured per carrier by a small declaration (`CarrierClientDeclaration`).
 */
export { createCarrierClient, type CarrierClient } from './client.js';
export { createTokenCache, readOAuthToken, type IssuedToken, type TokenCache } from './auth.js';
export { classifyAnswer, isWrite, parseRetryAfter, readCommonError, type ErrorDeclaration } from './classify.js';
export type {
  CarrierAnswer,
  CarrierAuth,
  CarrierCallLimits,
  CarrierCallSpec,
  CarrierClientDeclaration,
  CarrierErrorInfo,
  CarrierOperation,
  CarrierRequest,
  ErrorHint,
  FailedCall,
  OAuthClientCredentials,
} from './types.js';
