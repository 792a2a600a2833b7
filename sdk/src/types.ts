import type { components, operations } from './generated/openapi.js';

/** The API's objects, by name, as the OpenAPI document describes them (generated, never copied). */
type S = components['schemas'];
export type Shipment = S['Shipment'];
export type ShipmentStatus = Shipment['status'];
export type QuoteItem = S['QuoteItem'];
export type Tracking = S['Tracking'];
export type TrackingEvent = S['TrackingEvent'];
export type Address = S['Address'];
export type AddressVerification = S['AddressVerification'];
export type Balance = S['Balance'];
export type LabelLink = S['LabelLink'];
export type LabelFormat = LabelLink['format'];
export type WebhookEndpoint = S['WebhookEndpoint'];
export type WebhookEndpointWithSecret = S['WebhookEndpointWithSecret'];
export type WebhookDelivery = S['WebhookDelivery'];
export type Event = S['Event'];
export type EventType = Event['type'];
export type SandboxScan = S['SandboxScan'];
export type DeletedAddress = S['DeletedAddress'];
export type DeletedWebhookEndpoint = S['DeletedWebhookEndpoint'];
export type ScanForm = S['ScanForm'];
export type Pickup = S['Pickup'];
export type Batch = S['Batch'];
export type ShipmentDocument = S['ShipmentDocument'];
export type Customs = S['Customs'];
export type ShipmentOptions = S['ShipmentOptions'];

type Op = operations;
type JsonBody<O extends keyof Op> = Op[O] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Query<O extends keyof Op> = Op[O] extends { parameters: { query?: infer Q } } ? Omit<NonNullable<Q>, 'cursor'> : never;

export type QuoteCreateParams = JsonBody<'createQuote'>;
export type ShipmentCreateParams = JsonBody<'createShipment'>;
export type ReturnCreateParams = JsonBody<'createReturn'>;
export type ShipmentListParams = Query<'listShipments'>;
export type BatchCreateParams = JsonBody<'createBatch'>;
export type AddressCreateParams = JsonBody<'createAddress'>;
export type AddressUpdateParams = JsonBody<'updateAddress'>;
export type AddressVerifyParams = JsonBody<'verifyAddress'>;
export type WebhookEndpointCreateParams = JsonBody<'createWebhookEndpoint'>;
export type EventListParams = Query<'listEvents'>;
export type SandboxScanParams = JsonBody<'createSandboxScan'>;
export type PageParams = Query<'listAddresses'>;
export type ScanFormCreateParams = JsonBody<'createScanForm'>;
export type PickupCreateParams = JsonBody<'createPickup'>;

/** One page of a list. */
export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}
