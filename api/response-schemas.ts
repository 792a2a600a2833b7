import { Type, type TSchema } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from '../domain/index.js';
import { closed, nullable } from './response-objects.js';

/**
 * `schema.response` of every route: its success and the problem of each code it can answer, by
 * status. The named schemas they refer to are in response-objects.ts.
 */
export { registerResponseSchemas } from './response-objects.js';

const ref = (name: string) => Type.Ref(name);

/** One page of a list (api/pagination.ts). */
const page = (item: string) =>
  Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(ref(item)),
      has_more: Type.Boolean(),
      next_cursor: nullable(Type.String({ description: 'Pass as ?cursor= for the next page' })),
    },
    closed,
  );

const json = (description: string, schema: TSchema) => ({ description, content: { 'application/json': { schema } } });

/** The problem body of each code a route can answer, grouped by status. */
function problems(codes: Code[]) {
  const byStatus = new Map<number, Code[]>();
  for (const code of codes) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, unknown> = {};
  for (const [status, list] of byStatus) {
    out[status] = {
      description: list.map((c) => `\`${c}\``).join(', '),
      content: { 'application/problem+json': { schema: ref('Problem') } },
    };
  }
  return out;
}

type Code = ErrorCode;

/** Answers any authenticated route can give before its handler runs. */
const AUTHENTICATED: Code[] = ['unauthorized', 'insufficient_scope', 'ip_not_allowed', 'rate_limited', 'internal_error', 'service_unavailable'];
/** And those a route that reads parameters or a body can add. */
const READS: Code[] = ['validation_failed', 'bad_request', 'header_fields_too_large'];
const BODY: Code[] = ['invalid_json', 'payload_too_large', 'unsupported_media_type', 'request_timeout'];

const responses = (success: Record<number, unknown>, codes: Code[]) => ({
  ...success,
  ...problems([...new Set([...AUTHENTICATED, ...READS, ...codes])]),
});

/** `schema.response` of each route, by route. */
export const RESPONSES = {
  createQuote: responses({ 200: json('Eligible services, cheapest gross first', Type.Object({ object: Type.Literal('list'), data: Type.Array(ref('QuoteItem')) }, closed)) }, BODY),
  createShipment: responses(
    {
      201: json('Purchased', ref('Shipment')),
      202: json('Still under way (status pending); see the Location header', ref('Shipment')),
    },
    [
      ...BODY,
      'idempotency_key_in_use',
      'idempotency_key_reused',
      'insufficient_funds',
      'card_declined',
      'service_not_available',
      'carrier_error',
      'carrier_unavailable',
    ],
  ),
  retrieveShipment: responses({ 200: json('The shipment', ref('Shipment')) }, ['not_found']),
  listShipments: responses({ 200: json('One page, newest first', page('Shipment')) }, []),
  voidShipment: responses(
    { 200: json('Voided and the charge reversed', ref('Shipment')), 202: json('Still voiding', ref('Shipment')) },
    ['not_found', 'label_already_scanned', 'shipment_not_voidable', 'idempotency_key_in_use', 'idempotency_key_reused', 'carrier_error', 'carrier_unavailable'],
  ),
  labelLink: responses({ 200: json('A signed URL to the file', ref('LabelLink')) }, ['not_found', 'label_not_available']),
  labelFile: responses(
    {
      200: {
        description: 'The label file',
        content: {
          'application/pdf': { schema: Type.String({ contentMediaType: 'application/pdf' }) },
          'application/zpl': { schema: Type.String({ contentMediaType: 'application/zpl' }) },
        },
      },
    },
    ['not_found', 'label_not_available'],
  ),
  tracking: responses({ 200: json('Every scan, oldest first', ref('Tracking')) }, ['not_found']),
  sandboxScan: responses({ 202: json('Recorded; it flows through tracking and webhooks', ref('SandboxScan')) }, [...BODY, 'not_found', 'label_not_available']),
  balance: responses({ 200: json('The balance', ref('Balance')) }, []),
  createAddress: responses(
    { 201: json('Saved', ref('Address')), 200: json('The same address was already saved', ref('Address')) },
    [...BODY, 'idempotency_key_in_use', 'idempotency_key_reused'],
  ),
  listAddresses: responses({ 200: json('One page, newest first', page('Address')) }, []),
  retrieveAddress: responses({ 200: json('The address', ref('Address')) }, ['not_found']),
  updateAddress: responses({ 200: json('The edited address', ref('Address')) }, [...BODY, 'not_found', 'address_already_exists']),
  deleteAddress: responses({ 200: json('Deleted', ref('DeletedAddress')) }, ['not_found']),
  createWebhookEndpoint: responses(
    { 201: json('Registered; the secret is shown only here', ref('WebhookEndpointWithSecret')) },
    [...BODY, 'limit_exceeded', 'webhook_endpoint_exists'],
  ),
  listWebhookEndpoints: responses({ 200: json('One page, newest first', page('WebhookEndpoint')) }, []),
  deleteWebhookEndpoint: responses({ 200: json('Deleted', ref('DeletedWebhookEndpoint')) }, ['not_found']),
  listWebhookDeliveries: responses({ 200: json('One page, newest first', page('WebhookDelivery')) }, ['not_found']),
  listEvents: responses({ 200: json('One page, newest first', page('Event')) }, []),
  retrieveEvent: responses({ 200: json('The event', ref('Event')) }, ['not_found']),
};
