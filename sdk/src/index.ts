export { ParcelShipping, type ClientOptions, type FollowOptions, type IdempotentOptions } from './client.js';
export { verifyWebhook } from './webhooks.js';
export {
  ParcelShippingError,
  ParcelShippingConnectionError,
  WebhookVerificationError,
  isApiError,
  type ErrorCode,
  type Problem,
} from './errors.js';
export type * from './types.js';
export type { components, operations, paths } from './generated/openapi.js';
