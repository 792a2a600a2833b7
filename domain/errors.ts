/** The one error vocabulary: each code of the API contract with its HTTP status and title. */
export const ERRORS = {
  /** The HTTP parser could not read the request (malformed request line, unknown method). */
  bad_request: { status: 400, title: 'Bad request' },
  invalid_json: { status: 400, title: 'Invalid JSON' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  insufficient_funds: { status: 402, title: 'Insufficient funds' },
  card_declined: { status: 402, title: 'Card declined' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  ip_not_allowed: { status: 403, title: 'IP address not allowed' },
  link_expired: { status: 403, title: 'Link expired' },
  invalid_signature: { status: 403, title: 'Invalid signature' },
  not_found: { status: 404, title: 'Not found' },
  /** The path exists, but not for this method; `Allow` lists the methods it has. */
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  label_already_scanned: { status: 409, title: 'Label already scanned' },
  shipment_not_voidable: { status: 409, title: 'Shipment not voidable' },
  idempotency_key_in_use: { status: 409, title: 'Idempotency key in use' },
  label_not_available: { status: 409, title: 'Label not available' },
  /** An edit would make a saved address the same as another one of the account. */
  address_already_exists: { status: 409, title: 'Address already exists' },
  /** A webhook endpoint with the same URL already exists for this account and mode. */
  webhook_endpoint_exists: { status: 409, title: 'Webhook endpoint exists' },
  request_timeout: { status: 408, title: 'Request timeout' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  /** An account-level limit is reached (16 webhook endpoints per account and mode); `detail` names it. */
  limit_exceeded: { status: 422, title: 'Limit exceeded' },
  service_not_available: { status: 422, title: 'Service not available' },
  rate_limited: { status: 429, title: 'Rate limited' },
  header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal error' },
  carrier_error: { status: 502, title: 'Carrier error' },
  carrier_unavailable: { status: 503, title: 'Carrier unavailable' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** Each code by its own name (`CODE.not_found`): code outside domain/ names codes through this, never as literals. */
export const CODE = Object.fromEntries(Object.keys(ERRORS).map((code) => [code, code])) as { readonly [K in ErrorCode]: K };

export interface FieldError {
  path: string;
  message: string;
}

/** A failure a client can act on. `api/` turns it into problem+json in one place. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; fields?: Record<string, unknown> } = {},
  ) {
    super(message ?? ERRORS[code].title);
    this.status = ERRORS[code].status;
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERRORS, value);
}
