import type {
  Batch,
  BatchCreateParams,
  LabelLink,
  Pickup,
  PickupCreateParams,
  PageParams,
  ScanForm,
  ScanFormCreateParams,
  Shipment,
} from './types.js';

/** How a resource reaches the API: the client's own request (with its retries) and pagination. */
export interface Transport {
  request<T>(method: string, path: string, o?: { body?: unknown; idempotencyKey?: string }): Promise<{ body: T }>;
  paginate<T>(path: string, params: Record<string, unknown>): AsyncIterable<T>;
}

const enc = encodeURIComponent;

/** SCAN forms: purchased shipments of one carrier and sender on one manifest. */
export function scanFormResource(t: Transport) {
  return {
    create: async (body: ScanFormCreateParams, options: { idempotencyKey?: string } = {}): Promise<ScanForm> =>
      (await t.request<ScanForm>('POST', '/scan_forms', { body, idempotencyKey: options.idempotencyKey })).body,
    retrieve: async (id: string): Promise<ScanForm> => (await t.request<ScanForm>('GET', `/scan_forms/${enc(id)}`)).body,
    list: (params: PageParams = {}): AsyncIterable<ScanForm> => t.paginate<ScanForm>('/scan_forms', params),
  };
}

/** Carrier pickups: a fee, where the carrier charges one, is charged on booking and reversed on cancel. */
export function pickupResource(t: Transport) {
  return {
    create: async (body: PickupCreateParams, options: { idempotencyKey?: string } = {}): Promise<Pickup> =>
      (await t.request<Pickup>('POST', '/pickups', { body, idempotencyKey: options.idempotencyKey })).body,
    retrieve: async (id: string): Promise<Pickup> => (await t.request<Pickup>('GET', `/pickups/${enc(id)}`)).body,
    list: (params: PageParams = {}): AsyncIterable<Pickup> => t.paginate<Pickup>('/pickups', params),
    cancel: async (id: string, options: { idempotencyKey?: string } = {}): Promise<Pickup> =>
      (await t.request<Pickup>('POST', `/pickups/${enc(id)}/cancel`, { idempotencyKey: options.idempotencyKey })).body,
  };
}

/** Batches: up to 1,000 purchases in one request, each bought on its own; one merged label file. */
export function batchResource(t: Transport) {
  return {
    create: async (body: BatchCreateParams, options: { idempotencyKey?: string } = {}): Promise<Batch> =>
      (await t.request<Batch>('POST', '/batches', { body, idempotencyKey: options.idempotencyKey })).body,
    retrieve: async (id: string): Promise<Batch> => (await t.request<Batch>('GET', `/batches/${enc(id)}`)).body,
    list: (params: PageParams = {}): AsyncIterable<Batch> => t.paginate<Batch>('/batches', params),
    /** The batch's shipments in item order, each with its `failure` when it failed. */
    shipments: (id: string, params: PageParams = {}): AsyncIterable<Shipment> => t.paginate<Shipment>(`/batches/${enc(id)}/shipments`, params),
    /** A short-lived signed URL to the merged label file (409 `batch_not_completed` before it is made). */
    labelLink: async (id: string): Promise<LabelLink> => (await t.request<LabelLink>('GET', `/batches/${enc(id)}/label/signed`)).body,
  };
}
