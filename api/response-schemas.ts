import { Type, type TSchema } from '@sinclair/typebox';
import {
  ERRORS,
  EVENT_TYPES,
  FUNDING_SOURCES,
  LABEL_FORMAT_LIST,
  SCAN_STATUSES,
  SHIPMENT_STATUSES,
  TRACKING_STATUSES,
  type ErrorCode,
} from '../domain/index.js';

/**
 * The response schemas: every answer of every route, described once (contract: the OpenAPI document
 * is generated from the same schemas as the code). They document, and the response-validation test
 * holds every real answer to them; they do not serialize (api/app.ts keeps JSON.stringify, so a
 * field missing here fails that test instead of vanishing from the wire).
 *
 * Named schemas are registered once (`registerResponseSchemas`) and appear as
 * `#/components/schemas/<Name>`, which is what the SDK's types are generated from.
 */

const literals = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {});
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const timestamp = (description: string) => Type.String({ format: 'date-time', description });
const money = (description: string) => Type.String({ pattern: '^-?\\d+\\.\\d{2}$', description });
const livemode = Type.Boolean({ description: 'false for sandbox objects' });
const closed = { additionalProperties: false } as const;

const Price = Type.Object(
  { net: money('Net amount'), vat: money('VAT'), gross: money('Net plus VAT'), currency: Type.String({ description: 'ISO 4217' }) },
  { ...closed, $id: 'Price' },
);

const Shipment = Type.Object(
  {
    id: Type.String({ description: 'shp_…' }),
    object: Type.Literal('shipment'),
    livemode,
    status: literals(SHIPMENT_STATUSES),
    reference: nullable(Type.String()),
    service: Type.Object({ code: Type.String(), carrier: nullable(Type.String()), name: nullable(Type.String()) }, closed),
    price: nullable(Type.Ref('Price')),
    charged_to: literals(FUNDING_SOURCES),
    tracking: Type.Object({ number: nullable(Type.String()), status: nullable(literals(TRACKING_STATUSES)) }, closed),
    label: nullable(Type.Object({ formats: Type.Array(literals(LABEL_FORMAT_LIST)), url: Type.String() }, closed)),
    failure: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() }, closed)),
    created_at: timestamp('When the shipment was created'),
    updated_at: timestamp('When it last changed'),
  },
  { ...closed, $id: 'Shipment' },
);

const QuoteItem = Type.Object(
  {
    object: Type.Literal('quote'),
    livemode,
    service: Type.Object({ code: Type.String(), carrier: Type.String(), name: Type.String() }, closed),
    price: Type.Ref('Price'),
    estimated_delivery_days: Type.Integer(),
  },
  { ...closed, $id: 'QuoteItem' },
);

const Location = Type.Object({ city: Type.String(), postcode: Type.String(), country: Type.String() }, { ...closed, $id: 'Location' });

const TrackingEvent = Type.Object(
  {
    id: Type.String(),
    occurred_at: timestamp('When the carrier scanned'),
    status: literals(SCAN_STATUSES),
    description: Type.String(),
    location: Type.Optional(nullable(Type.Ref('Location'))),
  },
  { ...closed, $id: 'TrackingEvent' },
);

const Tracking = Type.Object(
  {
    object: Type.Literal('tracking'),
    livemode,
    tracking_number: Type.String(),
    carrier: nullable(Type.String()),
    shipment_id: Type.String(),
    status: nullable(literals(TRACKING_STATUSES)),
    events: Type.Array(Type.Ref('TrackingEvent'), { description: 'Every scan, oldest first' }),
  },
  { ...closed, $id: 'Tracking' },
);

const SandboxScan = Type.Object(
  {
    object: Type.Literal('scan'),
    livemode: Type.Literal(false),
    shipment_id: Type.String(),
    tracking_number: nullable(Type.String()),
    status: literals(SCAN_STATUSES),
    description: Type.String(),
    occurred_at: timestamp('When the scan was recorded'),
  },
  { ...closed, $id: 'SandboxScan' },
);

const LabelLink = Type.Object(
  {
    object: Type.Literal('label_link'),
    livemode,
    url: Type.String({ format: 'uri', description: 'Signed URL; works without the key until expires_at' }),
    format: literals(LABEL_FORMAT_LIST),
    expires_at: timestamp('When the URL stops working'),
  },
  { ...closed, $id: 'LabelLink' },
);

const Address = Type.Object(
  {
    id: Type.String({ description: 'adr_…' }),
    object: Type.Literal('address'),
    name: Type.String(),
    line1: Type.String(),
    line2: nullable(Type.String()),
    city: Type.String(),
    postcode: Type.String(),
    country: Type.String({ description: 'ISO 3166-1 alpha-2, upper case' }),
    livemode,
    created_at: timestamp('When it was saved'),
    updated_at: timestamp('When it last changed'),
  },
  { ...closed, $id: 'Address' },
);

const Balance = Type.Object(
  {
    object: Type.Literal('balance'),
    livemode,
    funding_source: literals(FUNDING_SOURCES),
    currency: Type.String(),
    available: nullable(money('Wallet less holds, or credit still unused; null for a card')),
    pending: money('Purchases under way'),
    credit_limit: nullable(money('Credit limit')),
    low_balance_threshold: nullable(money('Threshold of wallet.low_balance')),
  },
  { ...closed, $id: 'Balance' },
);

const endpointFields = {
  id: Type.String({ description: 'we_…' }),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  events: Type.Array(literals(EVENT_TYPES)),
  created_at: timestamp('When it was registered'),
  livemode,
};
const WebhookEndpoint = Type.Object(endpointFields, { ...closed, $id: 'WebhookEndpoint' });
const WebhookEndpointWithSecret = Type.Object(
  { ...endpointFields, secret: Type.String({ description: 'whsec_…; shown only in this answer' }) },
  { ...closed, $id: 'WebhookEndpointWithSecret' },
);

const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'whd_…' }),
    object: Type.Literal('webhook_delivery'),
    event_id: Type.String(),
    attempt: Type.Integer({ minimum: 1 }),
    outcome: Type.String(),
    status_code: nullable(Type.Integer()),
    latency_ms: nullable(Type.Integer()),
    error: nullable(Type.String()),
    attempted_at: timestamp('When the attempt was made'),
    livemode,
  },
  { ...closed, $id: 'WebhookDelivery' },
);

const TrackingUpdate = Type.Object(
  {
    tracking_number: nullable(Type.String()),
    shipment_id: Type.String(),
    status: literals(SCAN_STATUSES),
    event: Type.Ref('TrackingEvent'),
  },
  { ...closed, $id: 'TrackingUpdate' },
);

const Event = Type.Object(
  {
    id: Type.String({ description: 'evt_…' }),
    object: Type.Literal('event'),
    type: literals(EVENT_TYPES),
    created_at: timestamp('When it was emitted'),
    livemode,
    data: Type.Object(
      {
        object: Type.Union([Type.Ref('Shipment'), Type.Ref('TrackingUpdate'), Type.Ref('Balance'), Type.Null()], {
          description: 'The shipment for shipment.*, the scan for tracking.updated, the balance for wallet.low_balance',
        }),
      },
      closed,
    ),
  },
  { ...closed, $id: 'Event' },
);

const Deleted = (object: string, id: string) =>
  Type.Object({ id: Type.String(), object: Type.Literal(object), deleted: Type.Literal(true) }, { ...closed, $id: id });

/**
 * Codes of the contract that the code base may not raise yet (issue 13 adds them); described already
 * so that clients know them. Once `ERRORS` has them, this list changes nothing.
 */
const CONTRACT_CODES: Record<string, number> = { limit_exceeded: 422, webhook_endpoint_exists: 409 };
const ALL_CODES = [...new Set([...Object.keys(ERRORS), ...Object.keys(CONTRACT_CODES)])];
const statusOf = (code: string): number => (ERRORS as Record<string, { status: number }>)[code]?.status ?? CONTRACT_CODES[code];

const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    code: literals(ALL_CODES, 'The stable, machine-readable error'),
    detail: Type.String(),
    request_id: Type.String({ description: 'req_…' }),
    errors: Type.Optional(
      Type.Array(Type.Object({ path: Type.String(), message: Type.String() }, closed), { description: 'Each invalid field (validation_failed)' }),
    ),
    shipment_id: Type.Optional(Type.String({ description: 'The failed shipment, still listed (purchase and void failures)' })),
    existing_id: Type.Optional(Type.String({ description: 'The address an edit would duplicate (address_already_exists)' })),
  },
  { ...closed, $id: 'Problem', description: 'RFC 9457 problem details' },
);

/** Every named schema, in an order where each is registered after those it refers to. */
const NAMED = [
  Price,
  Shipment,
  QuoteItem,
  Location,
  TrackingEvent,
  Tracking,
  SandboxScan,
  LabelLink,
  Address,
  Balance,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookDelivery,
  TrackingUpdate,
  Event,
  Deleted('address', 'DeletedAddress'),
  Deleted('webhook_endpoint', 'DeletedWebhookEndpoint'),
  Problem,
];

export function registerResponseSchemas(app: { addSchema(schema: unknown): unknown }) {
  for (const schema of NAMED) app.addSchema(schema);
}

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
    const status = statusOf(code);
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

type Code = ErrorCode | 'limit_exceeded' | 'webhook_endpoint_exists';

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
