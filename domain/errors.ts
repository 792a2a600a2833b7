/**
 * The one error table: every code an ApplicationFailure or an answer of ours carries, with what a
 * customer sees of it. A contract code is answered as itself (problem+json: `status`, `title`, the
 * `type` page at /api/v1/problems/<code> that reads `when` and `then`). An internal code (`internal:
 * true`) is a failure type the workflows and activities act on that never reaches a customer as such:
 * a customer sees `internal_error` instead, hence its 500; its `when` and `then` are for operators.
 *
 * `message` is what a customer reads in a failed shipment's `failure.message` (and the problem's
 * `detail`): our words, or null where the caller's message is kept (the ledger's, the rate card's,
 * which are ours already). A carrier's or card processor's own words (raw response bodies, their
 * internal codes) never reach a customer: operators read them in the workflow's history instead.
 */

/** A failed purchase's message for every code without words of its own. */
export const GENERIC_FAILURE_MESSAGE = 'The purchase failed; nothing was bought or charged.';

/** A void the carrier refused (`carrier_error`): the detail of the 502, without the carrier's text. */
export const VOID_REFUSED_MESSAGE = 'The carrier refused the cancellation; the label stays bought and charged.';

export interface ErrorEntry {
  /** The HTTP status a customer sees: an internal code's is 500 (it is answered as `internal_error`). */
  status: number;
  title: string;
  message: string | null;
  internal: boolean;
  /**
   * When the code is answered, and what the caller does about it: the page its problem `type` resolves
   * to (api/problem-types.ts), in the words of docs/api-guide.md's table of errors.
   */
  when: string;
  then: string;
}

export const ERROR_TABLE = {
  bad_request: {
    status: 400, title: 'Bad request', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The server could not read the request at all: a body that is not UTF-8, or a malformed header.',
    then: 'Fix the request; sending it again unchanged gets the same answer.',
  },
  invalid_json: {
    status: 400, title: 'Invalid JSON', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The body is not parseable JSON.',
    then: 'Send a JSON document as the body.',
  },
  unauthorized: {
    status: 401, title: 'Unauthorized', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The request has no API key, an unknown, revoked or expired one, or one in a malformed Authorization header.',
    then: 'Send `Authorization: Bearer svc_live_…` (or `svc_test_…`) with a key that is in force.',
  },
  insufficient_funds: {
    status: 402, title: 'Insufficient funds', message: null, internal: false,
    when: 'The wallet balance or the remaining credit is below the price of the purchase.',
    then: 'Top up the wallet (or raise the credit limit) and buy again; nothing was bought or charged.',
  },
  card_declined: {
    status: 402, title: 'Card declined', message: 'The card was declined; nothing was bought or charged.', internal: false,
    when: 'The account is funded by card, and the card processor declined the charge.',
    then: 'Update the card and buy again; nothing was bought.',
  },
  insufficient_scope: {
    status: 403, title: 'Insufficient scope', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The API key lacks the scope the endpoint needs; `detail` names it.',
    then: 'Use a key created with that scope.',
  },
  ip_not_allowed: {
    status: 403, title: 'IP address not allowed', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The API key is pinned to an allowlist of addresses that does not contain the caller.',
    then: 'Call from an allowed address, or change the key’s allowlist.',
  },
  link_expired: {
    status: 403, title: 'Link expired', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'A signed label URL was used after it expired.',
    then: 'Ask for a new one: `GET /shipments/{shipment}/label/{format}`.',
  },
  invalid_signature: {
    status: 403, title: 'Invalid signature', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'A signed label URL was altered, so its signature does not match.',
    then: 'Use the URL exactly as the API returned it.',
  },
  not_found: {
    status: 404, title: 'Not found', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'No such object or route, or the object belongs to another account or mode (the two look the same).',
    then: 'Check the id, and that the key is of the mode (live or sandbox) the object was made in.',
  },
  /** The path exists, but not for this method; `Allow` lists the methods it has. */
  method_not_allowed: {
    status: 405, title: 'Method not allowed', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The path exists, but not for this method (a `TRACE`, or a `DELETE` of a shipment).',
    then: 'Use one of the methods the `Allow` header lists.',
  },
  label_already_scanned: {
    status: 409, title: 'Label already scanned', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'A void of a label the carrier has already scanned (delivered included).',
    then: 'The label cannot be voided; it stays bought and charged.',
  },
  shipment_not_voidable: {
    status: 409, title: 'Shipment not voidable', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'A void of a shipment that is pending, failed or already voided.',
    then: 'Read the shipment: only a purchased one can be voided.',
  },
  idempotency_key_in_use: {
    status: 409, title: 'Idempotency key in use', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'A request with the same Idempotency-Key is still being processed.',
    then: 'Wait `Retry-After` seconds and send the same request again with the same key.',
  },
  label_not_available: {
    status: 409, title: 'Label not available', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The label of a pending, failed or voided shipment was asked for, or a sandbox scan was sent for one of those or a delivered one; or the merged label file of a completed batch some of whose purchased labels do not exist in its format (a carrier did not provide them).',
    then: "Labels exist once a shipment is purchased, and not after it is voided; a delivered parcel takes no more scans. A batch without a merged file: download each purchased shipment's label.",
  },
  address_already_exists: {
    status: 409, title: 'Address already exists', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'An address edit would make it the same as another saved address.',
    then: 'Use the saved address instead.',
  },
  batch_not_completed: {
    status: 409, title: 'Batch not completed', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The merged label file of a batch was asked for while the batch is still processing.',
    then: 'Wait for the batch to complete (GET the batch, or the `batch.completed` webhook), then ask again.',
  },
  webhook_endpoint_exists: {
    status: 409, title: 'Webhook endpoint exists', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'A webhook endpoint with that URL already exists for this account and mode.',
    then: 'Use the existing endpoint, or delete it first.',
  },
  request_timeout: {
    status: 408, title: 'Request timeout', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The request, its headers or its body, did not arrive in time.',
    then: 'Send it again.',
  },
  payload_too_large: {
    status: 413, title: 'Payload too large', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The body is over 64 KiB.',
    then: 'Send a smaller body.',
  },
  unsupported_media_type: {
    status: 415, title: 'Unsupported media type', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'A body that is not declared as JSON, or declared in a charset other than UTF-8.',
    then: 'Send `Content-Type: application/json`.',
  },
  validation_failed: {
    status: 422, title: 'Validation failed', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'A field is missing, of the wrong type or out of bounds, or a string holds a control character; `errors[]` lists each field by its path.',
    then: 'Fix the fields named in `errors[]`.',
  },
  idempotency_key_reused: {
    status: 422, title: 'Idempotency key reused', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The Idempotency-Key was used before with a different request (method, path or body).',
    then: 'Use a new key for a new request.',
  },
  limit_exceeded: {
    status: 422, title: 'Limit exceeded', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'An account limit is reached (16 webhook endpoints per account and mode); `detail` names it.',
    then: 'Remove something the limit counts before adding more.',
  },
  service_not_available: {
    status: 422, title: 'Service not available', message: null, internal: false,
    when: 'The service code is unknown, or not offered for this parcel and route.',
    then: 'Quote the parcel (`POST /quotes`) and buy one of the services offered.',
  },
  option_not_supported: {
    status: 422, title: 'Option not supported', message: null, internal: false,
    when: 'The service cannot honour an option of the purchase (a signature, a declared value, Saturday delivery); `errors[]` names the option and `detail` the service.',
    then: 'Quote with the same options (`POST /quotes`) and buy one of the services offered, or leave the option out.',
  },
  price_changed: {
    status: 422, title: 'Price changed', message: 'The quote expired and the carrier’s price is now higher; nothing was bought or charged. Quote again.', internal: false,
    when: 'The quote for this service, parcel and route expired, and the carrier now asks more than it quoted.',
    then: 'Quote again (`POST /quotes`) and buy at the new price; nothing was bought or charged.',
  },
  verification_not_available: {
    status: 422, title: 'Verification not available', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'An address check of an address in a country no enabled carrier checks (US and Puerto Rico addresses only, with USPS or UPS enabled), or of one that none of them can take as it is; `detail` says which.',
    then: 'Nothing was checked; the address may still be used as it is.',
  },
  rate_limited: {
    status: 429, title: 'Rate limited', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The key’s allowance of requests is spent.',
    then: 'Wait `Retry-After` seconds; `RateLimit-*` headers show the allowance.',
  },
  header_fields_too_large: {
    status: 431, title: 'Request header fields too large', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The request headers are too large.',
    then: 'Send smaller headers.',
  },
  internal_error: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'An unexpected fault on our side.',
    then: 'Retry later; if it persists, quote the `request_id` to support.',
  },
  carrier_error: {
    status: 502, title: 'Carrier error', message: 'The carrier refused the purchase; nothing was bought or charged.', internal: false,
    when: 'The carrier refused the purchase or the cancellation definitively.',
    then: 'For a purchase, nothing was bought or charged; for a void, the label stays bought and charged.',
  },
  carrier_unavailable: {
    status: 503, title: 'Carrier unavailable', message: 'The carrier could not be reached in time; nothing was bought or charged. Try again later.', internal: false,
    when: 'The carrier could not be reached in time.',
    then: 'Nothing was bought or charged (a void: nothing was cancelled); retry after `Retry-After` seconds.',
  },
  service_unavailable: {
    status: 503, title: 'Service unavailable', message: GENERIC_FAILURE_MESSAGE, internal: false,
    when: 'The API is shutting down or cannot reach what it needs.',
    then: 'Retry shortly, with the same Idempotency-Key for a POST.',
  },
  carrier_ambiguous: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: true,
    when: 'The carrier may have carried out the request: its answer was lost after the request was sent.',
    then: 'The workflow asks the carrier by reference before trying again.',
  },
  carrier_retryable: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: true,
    when: 'A carrier failure that did nothing (the network, a 409, a 429, a 5xx).',
    then: 'The activity\'s retry policy tries again.',
  },
  shipment_missing: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: true,
    when: 'A step found no row for its shipment: a bug or lost data.',
    then: 'Never retried; operators see it in the workflow\'s history.',
  },
  invalid_data: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: true,
    when: 'Input our own store can never accept: PostgreSQL refused the data itself.',
    then: 'Never retried: retrying cannot help.',
  },
  card_processor_error: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: true,
    when: 'The card processor refused a request (a 4xx other than a decline).',
    then: 'Never retried: retrying cannot help.',
  },
  card_processor_retryable: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: true,
    when: 'A card processor failure that may pass (the network, a 409, a 429, a 5xx, an unreadable answer).',
    then: 'The activity\'s retry policy tries again.',
  },
  webhook_event_missing: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: true,
    when: 'A webhook delivery\'s event is gone from the database.',
    then: 'Never retried: the delivery ends.',
  },
  webhook_account_busy: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: true,
    when: 'An attempt waits for its account\'s turn on this worker.',
    then: 'Retried after a delay.',
  },
  webhook_delivery_failed: {
    status: 500, title: 'Internal error', message: GENERIC_FAILURE_MESSAGE, internal: true,
    when: 'A webhook delivery spent its six attempts.',
    then: 'The delivery workflow ends failed with this type.',
  },
} as const satisfies Record<string, ErrorEntry>;

type Table = typeof ERROR_TABLE;

/** A code of the API contract: what a customer can be answered with. */
export type ErrorCode = { [K in keyof Table]: Table[K]['internal'] extends false ? K : never }[keyof Table];

/** A failure type the workflows act on that never reaches a customer as such. */
export type InternalFailure = Exclude<keyof Table, ErrorCode>;

/** The contract's codes alone, in the table's order: what problem bodies, pages and the OpenAPI document list. */
export const ERRORS = Object.fromEntries(Object.entries(ERROR_TABLE).filter(([, e]) => !e.internal)) as { readonly [K in ErrorCode]: Table[K] };

/**
 * Each code by its own name (`CODE.not_found`, `CODE.carrier_ambiguous`): code outside domain/ names
 * codes through this, never as literals.
 */
export const CODE = Object.fromEntries(Object.keys(ERROR_TABLE).map((code) => [code, code])) as { readonly [K in keyof Table]: K };

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

/** Whether a value is a contract code (an internal code is not: it never reaches a customer). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERRORS, value);
}

/** What a failed shipment with this code tells the customer: our words, or the caller's where the table keeps them. */
export function customerFailureMessage(code: ErrorCode, message: string): string {
  // A code from a stored history that is not in the table gets the generic words, never the caller's.
  const entry: ErrorEntry | undefined = ERRORS[code];
  return entry ? (entry.message ?? message) : GENERIC_FAILURE_MESSAGE;
}
