import { Type, type TSchema } from '@sinclair/typebox';
import { CODE, ERRORS, type ErrorCode } from '../domain/index.js';
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
const AUTHENTICATED: Code[] = [CODE.unauthorized, CODE.insufficient_scope, CODE.ip_not_allowed, CODE.rate_limited, CODE.internal_error, CODE.service_unavailable];
/** And those a route that reads parameters or a body can add. */
const READS: Code[] = [CODE.validation_failed, CODE.bad_request, CODE.header_fields_too_large];
/** A body's refusals; routes that take no parameters (void, the DELETEs) still read one sent to them. */
const BODY: Code[] = [CODE.invalid_json, CODE.payload_too_large, CODE.unsupported_media_type, CODE.request_timeout];

const responses = (success: Record<number, unknown>, codes: Code[]) => ({
  ...success,
  ...problems([...new Set([...AUTHENTICATED, ...READS, ...codes])]),
});

/** Routes without a key: the client address's limit and faults, then their own codes. */
const PUBLIC: Code[] = [CODE.rate_limited, CODE.internal_error, CODE.service_unavailable];

const LABEL_FILE = {
  description: 'The label file',
  content: {
    'application/pdf': { schema: Type.String({ contentMediaType: 'application/pdf' }) },
    'application/zpl': { schema: Type.String({ contentMediaType: 'application/zpl' }) },
  },
};

/** `schema.response` of each route, by route. */
export const RESPONSES = {
  createQuote: responses(
    {
      200: json(
        'Eligible services, cheapest gross first; carriers that did not answer in time, refused or cannot take the addresses are in `unavailable`',
        Type.Object({ object: Type.Literal('list'), data: Type.Array(ref('QuoteItem')), unavailable: Type.Array(ref('UnavailableCarrier')) }, closed),
      ),
    },
    BODY,
  ),
  createShipment: responses(
    {
      201: json('Purchased', ref('Shipment')),
      202: json('Still under way (status pending); see the Location header', ref('Shipment')),
    },
    [
      ...BODY,
      CODE.idempotency_key_in_use,
      CODE.idempotency_key_reused,
      CODE.insufficient_funds,
      CODE.card_declined,
      CODE.service_not_available,
      CODE.option_not_supported,
      CODE.price_changed,
      CODE.carrier_error,
      CODE.carrier_unavailable,
    ],
  ),
  createReturn: responses(
    {
      201: json('The return label, purchased', ref('Shipment')),
      202: json('Still under way (status pending); see the Location header', ref('Shipment')),
    },
    [
      ...BODY,
      CODE.not_found,
      CODE.label_not_available,
      CODE.idempotency_key_in_use,
      CODE.idempotency_key_reused,
      CODE.insufficient_funds,
      CODE.card_declined,
      CODE.service_not_available,
      CODE.option_not_supported,
      CODE.price_changed,
      CODE.carrier_error,
      CODE.carrier_unavailable,
    ],
  ),
  listDocuments: responses(
    { 200: json("The shipment's customs paperwork; empty where there is none or the carrier prints it with the label", Type.Object({ object: Type.Literal('list'), data: Type.Array(ref('ShipmentDocument')) }, closed)) },
    [CODE.not_found],
  ),
  signedDocumentFile: {
    200: { description: 'The document', content: { 'application/pdf': { schema: Type.String({ contentMediaType: 'application/pdf' }) } } },
    ...problems([...PUBLIC, ...READS, CODE.link_expired, CODE.invalid_signature, CODE.not_found, CODE.label_not_available]),
  },
  createBatch: responses(
    { 202: json('Accepted: every item is bought by its own purchase; follow the batch by GET or the batch.completed webhook', ref('Batch')) },
    [...BODY, CODE.idempotency_key_in_use, CODE.idempotency_key_reused],
  ),
  retrieveBatch: responses({ 200: json('The batch', ref('Batch')) }, [CODE.not_found]),
  listBatches: responses({ 200: json('One page, newest first', page('Batch')) }, []),
  listBatchShipments: responses({ 200: json("One page of the batch's shipments, in item order", page('Shipment')) }, [CODE.not_found]),
  batchLabelLink: responses({ 200: json('A signed URL to the merged label file', ref('LabelLink')) }, [CODE.not_found, CODE.batch_not_completed, CODE.label_not_available]),
  batchLabelFile: responses({ 200: { ...LABEL_FILE, description: 'Every purchased label of the batch, in item order' } }, [CODE.not_found, CODE.batch_not_completed, CODE.label_not_available]),
  signedBatchLabelFile: {
    200: { ...LABEL_FILE, description: 'Every purchased label of the batch, in item order' },
    ...problems([...PUBLIC, ...READS, CODE.link_expired, CODE.invalid_signature, CODE.not_found, CODE.batch_not_completed, CODE.label_not_available]),
  },
  retrieveShipment: responses({ 200: json('The shipment', ref('Shipment')) }, [CODE.not_found]),
  listShipments: responses({ 200: json('One page, newest first', page('Shipment')) }, []),
  voidShipment: responses(
    { 200: json('Voided and the charge reversed', ref('Shipment')), 202: json('Still voiding; see the Location header', ref('Shipment')) },
    [...BODY, CODE.not_found, CODE.label_already_scanned, CODE.shipment_not_voidable, CODE.idempotency_key_in_use, CODE.idempotency_key_reused, CODE.carrier_error, CODE.carrier_unavailable],
  ),
  labelLink: responses({ 200: json('A signed URL to the file', ref('LabelLink')) }, [CODE.not_found, CODE.label_not_available]),
  labelFile: responses({ 200: LABEL_FILE }, [CODE.not_found, CODE.label_not_available]),
  /** The signed link a label link hands out: no key, the signature is the credential. */
  signedLabelFile: {
    200: LABEL_FILE,
    ...problems([...PUBLIC, ...READS, CODE.link_expired, CODE.invalid_signature, CODE.not_found, CODE.label_not_available]),
  },
  /**
   * What every request can be refused for still applies without a key: an unreadable request (no or
   * two Host headers, an undecodable query parameter, headers too large), and a 503 once the
   * process is shutting down (api/app.ts, closeGracefully); /healthz alone is not rate-limited.
   */
  health: {
    200: json('The process is up', Type.Object({ status: Type.Literal('ok') }, closed)),
    ...problems([...READS, CODE.internal_error, CODE.service_unavailable]),
  },
  ready: { 200: json('The database and Temporal answer', Type.Object({ status: Type.Literal('ready') }, closed)), ...problems([...PUBLIC, ...READS]) },
  tracking: responses({ 200: json('Every scan, oldest first', ref('Tracking')) }, [CODE.not_found]),
  sandboxScan: responses({ 202: json('Recorded; it flows through tracking and webhooks', ref('SandboxScan')) }, [...BODY, CODE.not_found, CODE.label_not_available]),
  balance: responses({ 200: json('The balance', ref('Balance')) }, []),
  createAddress: responses(
    { 201: json('Saved', ref('Address')), 200: json('The same address was already saved', ref('Address')) },
    [...BODY, CODE.idempotency_key_in_use, CODE.idempotency_key_reused],
  ),
  listAddresses: responses({ 200: json('One page, newest first', page('Address')) }, []),
  retrieveAddress: responses({ 200: json('The address', ref('Address')) }, [CODE.not_found]),
  updateAddress: responses({ 200: json('The edited address', ref('Address')) }, [...BODY, CODE.not_found, CODE.address_already_exists]),
  verifyAddress: responses(
    { 200: json('The check: verified or not, the standardised address and what the carrier said', ref('AddressVerification')) },
    [...BODY, CODE.verification_not_available, CODE.carrier_error, CODE.carrier_unavailable],
  ),
  deleteAddress: responses({ 200: json('Deleted', ref('DeletedAddress')) }, [...BODY, CODE.not_found]),
  createWebhookEndpoint: responses(
    { 201: json('Registered; the secret is shown only here', ref('WebhookEndpointWithSecret')) },
    [...BODY, CODE.limit_exceeded, CODE.webhook_endpoint_exists, CODE.idempotency_key_in_use, CODE.idempotency_key_reused],
  ),
  listWebhookEndpoints: responses({ 200: json('One page, newest first', page('WebhookEndpoint')) }, []),
  deleteWebhookEndpoint: responses({ 200: json('Deleted', ref('DeletedWebhookEndpoint')) }, [...BODY, CODE.not_found]),
  listWebhookDeliveries: responses({ 200: json('One page, newest first', page('WebhookDelivery')) }, [CODE.not_found]),
  createScanForm: responses(
    { 201: json('The form, made by the carrier', ref('ScanForm')) },
    [...BODY, CODE.idempotency_key_in_use, CODE.idempotency_key_reused, CODE.carrier_error, CODE.carrier_unavailable],
  ),
  retrieveScanForm: responses({ 200: json('The form', ref('ScanForm')) }, [CODE.not_found]),
  listScanForms: responses({ 200: json('One page, newest first', page('ScanForm')) }, []),
  scanFormFile: responses({ 200: { description: 'The form as a PDF', content: { 'application/pdf': { schema: Type.String({ contentMediaType: 'application/pdf' }) } } } }, [CODE.not_found]),
  scanFormLink: responses({ 200: json('A signed URL to the form as a PDF', ref('FileLink')) }, [CODE.not_found]),
  signedScanFormFile: {
    200: { description: 'The form as a PDF', content: { 'application/pdf': { schema: Type.String({ contentMediaType: 'application/pdf' }) } } },
    ...problems([...PUBLIC, ...READS, CODE.link_expired, CODE.invalid_signature, CODE.not_found]),
  },
  createPickup: responses(
    { 201: json('Booked; its fee, where there is one, is charged', ref('Pickup')) },
    [...BODY, CODE.idempotency_key_in_use, CODE.idempotency_key_reused, CODE.insufficient_funds, CODE.carrier_error, CODE.carrier_unavailable],
  ),
  cancelPickup: responses(
    { 200: json('Cancelled; its fee is reversed', ref('Pickup')) },
    [...BODY, CODE.not_found, CODE.idempotency_key_in_use, CODE.idempotency_key_reused, CODE.carrier_error, CODE.carrier_unavailable],
  ),
  retrievePickup: responses({ 200: json('The pickup', ref('Pickup')) }, [CODE.not_found]),
  listPickups: responses({ 200: json('One page, newest first', page('Pickup')) }, []),
  listEvents: responses({ 200: json('One page, newest first', page('Event')) }, []),
  retrieveEvent: responses({ 200: json('The event', ref('Event')) }, [CODE.not_found]),
};
