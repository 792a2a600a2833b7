import type { FastifyPluginAsync } from 'fastify';
import { ApiError, CODE, ERRORS, isErrorCode, type ErrorCode } from '../domain/index.js';
import { problemType } from './problem.js';
import { html } from './web/html.js';

/**
 * What each problem `type` (`/api/v1/problems/<code>`) means, for the page that URI resolves to
 * (RFC 9457: dereferenced, a type URI should document the problem for people). Typed by code, so a
 * new code cannot ship without its page; the same words as docs/api-guide.md's table of errors.
 */
export const PROBLEM_TYPES: Record<ErrorCode, { when: string; then: string }> = {
  bad_request: {
    when: 'The server could not read the request at all: a body that is not UTF-8, or a malformed header.',
    then: 'Fix the request; sending it again unchanged gets the same answer.',
  },
  invalid_json: { when: 'The body is not parseable JSON.', then: 'Send a JSON document as the body.' },
  unauthorized: {
    when: 'The request has no API key, an unknown, revoked or expired one, or one in a malformed Authorization header.',
    then: 'Send `Authorization: Bearer svc_live_…` (or `svc_test_…`) with a key that is in force.',
  },
  insufficient_funds: {
    when: 'The wallet balance or the remaining credit is below the price of the purchase.',
    then: 'Top up the wallet (or raise the credit limit) and buy again; nothing was bought or charged.',
  },
  card_declined: {
    when: 'The account is funded by card, and the card processor declined the charge.',
    then: 'Update the card and buy again; nothing was bought.',
  },
  insufficient_scope: {
    when: 'The API key lacks the scope the endpoint needs; `detail` names it.',
    then: 'Use a key created with that scope.',
  },
  ip_not_allowed: {
    when: 'The API key is pinned to an allowlist of addresses that does not contain the caller.',
    then: 'Call from an allowed address, or change the key’s allowlist.',
  },
  link_expired: {
    when: 'A signed label URL was used after it expired.',
    then: 'Ask for a new one: `GET /shipments/{shipment}/label/{format}`.',
  },
  invalid_signature: {
    when: 'A signed label URL was altered, so its signature does not match.',
    then: 'Use the URL exactly as the API returned it.',
  },
  not_found: {
    when: 'No such object or route, or the object belongs to another account or mode (the two look the same).',
    then: 'Check the id, and that the key is of the mode (live or sandbox) the object was made in.',
  },
  method_not_allowed: {
    when: 'The path exists, but not for this method (a `TRACE`, or a `DELETE` of a shipment).',
    then: 'Use one of the methods the `Allow` header lists.',
  },
  label_already_scanned: {
    when: 'A void of a label the carrier has already scanned (delivered included).',
    then: 'The label cannot be voided; it stays bought and charged.',
  },
  shipment_not_voidable: {
    when: 'A void of a shipment that is pending, failed or already voided.',
    then: 'Read the shipment: only a purchased one can be voided.',
  },
  idempotency_key_in_use: {
    when: 'A request with the same Idempotency-Key is still being processed.',
    then: 'Wait `Retry-After` seconds and send the same request again with the same key.',
  },
  label_not_available: {
    when: 'The label of a pending, failed or voided shipment was asked for, or a sandbox scan was sent for one of those or a delivered one.',
    then: 'Labels exist once a shipment is purchased, and not after it is voided; a delivered parcel takes no more scans.',
  },
  address_already_exists: {
    when: 'An address edit would make it the same as another saved address.',
    then: 'Use the saved address instead.',
  },
  webhook_endpoint_exists: {
    when: 'A webhook endpoint with that URL already exists for this account and mode.',
    then: 'Use the existing endpoint, or delete it first.',
  },
  request_timeout: {
    when: 'The request, its headers or its body, did not arrive in time.',
    then: 'Send it again.',
  },
  payload_too_large: { when: 'The body is over 64 KiB.', then: 'Send a smaller body.' },
  unsupported_media_type: {
    when: 'A body that is not declared as JSON, or declared in a charset other than UTF-8.',
    then: 'Send `Content-Type: application/json`.',
  },
  validation_failed: {
    when: 'A field is missing, of the wrong type or out of bounds, or a string holds a control character; `errors[]` lists each field by its path.',
    then: 'Fix the fields named in `errors[]`.',
  },
  idempotency_key_reused: {
    when: 'The Idempotency-Key was used before with a different request (method, path or body).',
    then: 'Use a new key for a new request.',
  },
  limit_exceeded: {
    when: 'An account limit is reached (16 webhook endpoints per account and mode); `detail` names it.',
    then: 'Remove something the limit counts before adding more.',
  },
  service_not_available: {
    when: 'The service code is unknown, or not offered for this parcel and route.',
    then: 'Quote the parcel (`POST /quotes`) and buy one of the services offered.',
  },
  rate_limited: {
    when: 'The key’s allowance of requests is spent.',
    then: 'Wait `Retry-After` seconds; `RateLimit-*` headers show the allowance.',
  },
  header_fields_too_large: { when: 'The request headers are too large.', then: 'Send smaller headers.' },
  internal_error: {
    when: 'An unexpected fault on our side.',
    then: 'Retry later; if it persists, quote the `request_id` to support.',
  },
  carrier_error: {
    when: 'The carrier refused the purchase or the cancellation definitively.',
    then: 'For a purchase, nothing was bought or charged; for a void, the label stays bought and charged.',
  },
  carrier_unavailable: {
    when: 'The carrier could not be reached in time.',
    then: 'Nothing was bought or charged (a void: nothing was cancelled); retry after `Retry-After` seconds.',
  },
  service_unavailable: {
    when: 'The API is shutting down or cannot reach what it needs.',
    then: 'Retry shortly, with the same Idempotency-Key for a POST.',
  },
};

function page(title: string, body: ReturnType<typeof html>) {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}<p><a href="/docs">API reference</a> · <a href="/api/v1/problems">every problem type</a></p></body></html>`.text;
}

const code = (text: string) => html`${text.split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : part))}`;

/**
 * The pages the problem `type` URIs resolve to: `/api/v1/problems/<code>` (HTML, or JSON when asked
 * for it) and `/api/v1/problems`, the list. Public, like /docs.
 */
export const problemTypeRoutes = (): FastifyPluginAsync => async (app) => {
  app.get('/problems', { schema: { hide: true } }, async (_request, reply) => {
    const rows = (Object.keys(ERRORS) as ErrorCode[]).map(
      (c) => html`<tr><td>${ERRORS[c].status}</td><td><a href="${problemType(c)}"><code>${c}</code></a></td><td>${code(PROBLEM_TYPES[c].when)}</td></tr>`,
    );
    return reply
      .type('text/html; charset=utf-8')
      .send(page('Problem types', html`<h1>Problem types</h1><table><tr><th>status</th><th>code</th><th>when</th></tr>${rows}</table>`));
  });
  app.get<{ Params: { code: string } }>('/problems/:code', { schema: { hide: true } }, async (request, reply) => {
    const c = request.params.code;
    if (!isErrorCode(c)) throw new ApiError(CODE.not_found, `No problem type ${c}.`);
    const { status, title } = ERRORS[c];
    const { when, then } = PROBLEM_TYPES[c];
    const accept = request.headers.accept ?? '';
    if (/application\/(problem\+)?json/.test(accept) && !accept.includes('text/html')) {
      return reply.send({ type: problemType(c), title, status, code: c, when, then });
    }
    return reply
      .type('text/html; charset=utf-8')
      .send(page(`${title} (${status} ${c})`, html`<h1>${title}</h1><p>HTTP ${status}, <code>"code": "${c}"</code></p><h2>When</h2><p>${code(when)}</p><h2>What to do</h2><p>${code(then)}</p>`));
  });
};
