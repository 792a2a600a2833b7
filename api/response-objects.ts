import { Type } from '@sinclair/typebox';
import { AddressVerification, Batch, FileLink, Pickup, ScanForm } from './response-objects-merchant.js';
import { Customs, Parcel, ShipmentAddress, ShipmentDocument, ShipmentOptions } from './response-objects-terms.js';
import { SERVICE_CODES } from './schemas-shipment.js';
import {
  CODE,
  ERRORS,
  EVENT_TYPES,
  FUNDING_SOURCES,
  LABEL_FORMAT_LIST,
  SCAN_STATUSES,
  SHIPMENT_STATUSES,
  TRACKING_STATUSES,
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

import { closed, literals, livemode, money, nullable, timestamp } from './response-primitives.js';

export { closed, nullable };

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
    from: Type.Ref('ShipmentAddress'),
    to: Type.Ref('ShipmentAddress'),
    parcel: Type.Ref('Parcel'),
    is_return: Type.Boolean({ description: 'A return label: from sends the parcel back to to' }),
    options: Type.Ref('ShipmentOptions'),
    customs: nullable(Type.Ref('Customs')),
    return_of: nullable(Type.String({ description: 'shp_…: the shipment this one returns (POST /shipments/{shipment}/return); null otherwise' })),
    tracking: Type.Object({ number: nullable(Type.String()), status: nullable(literals(TRACKING_STATUSES)) }, closed),
    label: nullable(Type.Object({ formats: Type.Array(literals(LABEL_FORMAT_LIST)), url: Type.String() }, closed)),
    failure: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() }, closed)),
    batch_id: nullable(Type.String({ description: 'bat_…: the batch it was bought in; null outside a batch' })),
    created_at: timestamp('When the shipment was created'),
    updated_at: timestamp('When it last changed'),
  },
  { ...closed, $id: 'Shipment' },
);

const QuoteItem = Type.Object(
  {
    object: Type.Literal('quote'),
    livemode,
    // One of the codes a purchase takes, so a client's types carry a quote's code into its purchase.
    service: Type.Object({ code: Type.String({ enum: SERVICE_CODES }), carrier: Type.String(), name: Type.String() }, closed),
    price: Type.Ref('Price'),
    estimated_delivery_days: Type.Integer(),
    expires_at: timestamp('Until then a purchase of this service for the same parcel and route charges exactly this price'),
  },
  { ...closed, $id: 'QuoteItem' },
);

const UnavailableCarrier = Type.Object(
  {
    carrier: Type.String({ description: 'The carrier code' }),
    code: Type.Union([Type.Literal(CODE.carrier_unavailable), Type.Literal(CODE.carrier_error), Type.Literal(CODE.validation_failed)], {
      description: 'carrier_unavailable: no answer in time; carrier_error: it refused; validation_failed: an address field is wider than it takes',
    }),
    message: Type.String({ description: 'Why, in our words; for validation_failed, each field and the carrier’s limit' }),
  },
  { ...closed, $id: 'UnavailableCarrier' },
);

const Location = Type.Object({ city: Type.String(), postcode: Type.String(), country: Type.String() }, { ...closed, $id: 'Location' });

const TrackingEvent = Type.Object(
  {
    id: Type.String(),
    occurred_at: timestamp('When the carrier scanned'),
    status: literals(SCAN_STATUSES),
    description: Type.String(),
    location: Type.Optional(nullable(Type.Ref('Location'))),
    // Optional for the events stored before scans carried it; every event written now has it.
    carrier_code: Type.Optional(nullable(Type.String({ description: "The carrier's own status code as it sent it; null when it sends none. `status` is mapped from it." }))),
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
    state: nullable(Type.String({ description: 'ISO 3166-2 subdivision code without the country prefix' })),
    postcode: Type.String(),
    country: Type.String({ description: 'ISO 3166-1 alpha-2, upper case' }),
    company: nullable(Type.String()),
    phone: nullable(Type.String()),
    email: nullable(Type.String()),
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
        object: Type.Union([Type.Ref('Shipment'), Type.Ref('TrackingUpdate'), Type.Ref('Balance'), Type.Ref('Batch'), Type.Null()], {
          description: 'The shipment for shipment.*, the scan for tracking.updated, the balance for wallet.low_balance, the batch for batch.completed',
        }),
      },
      closed,
    ),
  },
  { ...closed, $id: 'Event' },
);

const Deleted = (object: string, id: string) =>
  Type.Object({ id: Type.String(), object: Type.Literal(object), livemode: Type.Boolean(), deleted: Type.Literal(true) }, { ...closed, $id: id });

const ALL_CODES = Object.keys(ERRORS);

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
  ScanForm,
  Pickup,
  Price,
  ShipmentAddress,
  Parcel,
  Customs,
  ShipmentOptions,
  ShipmentDocument,
  Shipment,
  Batch,
  QuoteItem,
  UnavailableCarrier,
  Location,
  TrackingEvent,
  Tracking,
  SandboxScan,
  LabelLink,
  FileLink,
  Address,
  AddressVerification,
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
