import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { CARRIER_REASON } from '../../domain/index.js';
import { DEFAULT_TIMEOUT_MS } from '../http-client.js';
import { createCarrierClient, type CarrierCallSpec, type CarrierClientDeclaration } from '../kit/index.js';
import { CarrierError, type PickupRequest, type Scan } from '../types.js';
import { DHL_ERRORS, DHL_OPERATIONS, type DhlOperation } from './errors.js';
import { buildDhlPickupRequest, DHL_PICKUP_CANCEL_QUERY, DHL_PICKUPS_PATH, dhlPickupCancelPath, parseDhlPickupResponse } from './mapping-pickup.js';
import { buildDhlRateRequest, DHL_RATES_PATH, parseDhlRates, type DhlRated, type DhlRateInput } from './mapping-rates.js';
import { buildDhlShipmentRequest, DHL_SHIPMENTS_PATH, parseDhlShipmentResponse, type DhlCreatedShipment, type DhlShipmentInput } from './mapping-shipment.js';
import { DHL_TRACKING_MULTI_PATH, DHL_TRACKING_QUERY, dhlReferenceQuery, dhlTrackingPath, parseDhlFoundShipments, parseDhlTracking, type DhlFoundShipment } from './mapping-tracking.js';

/**
 * Settings of one MyDHL API connection, as the config module passes them (CARRIER_DHL_EXPRESS_URL,
 * CARRIER_DHL_EXPRESS_API_KEY, CARRIER_DHL_EXPRESS_API_SECRET, CARRIER_DHL_EXPRESS_ACCOUNT_NUMBER).
 */
export interface DhlClientConfig {
  /** The document's server URL, `https://express.api.dhl.com/mydhlapi` (or its `/test`). */
  url: string;
  apiKey: string;
  apiSecret: string;
  /** The DHL Express account shipments and pickups are billed to. */
  accountNumber: string;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
}

/** The interface version every request names (`x-version`): the document says never to change it. */
export const DHL_INTERFACE_VERSION = '3.1.0';

/**
 * DHL Express to the shared client: HTTP Basic with the API key and secret on every call (DHL
 * issues no token), and on each request a fresh `Message-Reference` (a UUID: 36 characters, within
 * DHL's 28 to 36) and the interface version. The credentials stay in the client; messages carry
 * only DHL's words.
 */
export function dhlClientDeclaration(config: DhlClientConfig): CarrierClientDeclaration {
  return {
    ...DHL_ERRORS,
    baseUrl: config.url,
    timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    auth: { kind: 'basic', username: config.apiKey, password: config.apiSecret },
    headers: () => ({ 'message-reference': randomUUID(), 'x-version': DHL_INTERFACE_VERSION }),
    ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
  };
}

export function createDhlClient(config: DhlClientConfig) {
  const http = createCarrierClient(dhlClientDeclaration(config));

  function call<T>(operation: DhlOperation, spec: Omit<CarrierCallSpec<T>, 'operation' | 'name'>): Promise<T> {
    return http.call<T>({ ...spec, operation: DHL_OPERATIONS[operation], name: operation });
  }

  async function rate(input: Omit<DhlRateInput, 'accountNumber'>): Promise<DhlRated[]> {
    const body = buildDhlRateRequest({ ...input, accountNumber: config.accountNumber });
    if (!body) return [];
    return call('rate', { method: 'POST', path: DHL_RATES_PATH, body, decode: (answer) => parseDhlRates(answer, input.from, input.to) });
  }

  async function ship(input: Omit<DhlShipmentInput, 'accountNumber'>): Promise<DhlCreatedShipment> {
    const body = buildDhlShipmentRequest({ ...input, accountNumber: config.accountNumber });
    return call('ship', { method: 'POST', path: DHL_SHIPMENTS_PATH, body, decode: parseDhlShipmentResponse });
  }

  /** Every checkpoint, oldest first. DHL answers 404 for a waybill it has not scanned yet: no scans. */
  async function track(trackingNumber: string): Promise<Scan[]> {
    try {
      return await call('track', { method: 'GET', path: dhlTrackingPath(trackingNumber), query: { ...DHL_TRACKING_QUERY }, decode: (answer) => parseDhlTracking(answer, trackingNumber) });
    } catch (error) {
      if (error instanceof CarrierError && error.details.reason === CARRIER_REASON.notFound) return [];
      throw error;
    }
  }

  /** The shipments DHL made under our reference; none when it knows of none (a 404). */
  async function findByReference(reference: string): Promise<DhlFoundShipment[]> {
    try {
      return await call('reference', { method: 'GET', path: DHL_TRACKING_MULTI_PATH, query: dhlReferenceQuery(reference, config.accountNumber, new Date()), decode: parseDhlFoundShipments });
    } catch (error) {
      if (error instanceof CarrierError && error.details.reason === CARRIER_REASON.notFound) return [];
      throw error;
    }
  }

  async function schedulePickup(request: PickupRequest): Promise<{ confirmation: string }> {
    const body = buildDhlPickupRequest(request, config.accountNumber);
    return call('pickup', { method: 'POST', path: DHL_PICKUPS_PATH, body, decode: parseDhlPickupResponse });
  }

  async function cancelPickup(confirmation: string): Promise<void> {
    await call('pickup_cancel', { method: 'DELETE', path: dhlPickupCancelPath(confirmation), query: { ...DHL_PICKUP_CANCEL_QUERY }, decode: () => true });
  }

  return { rate, ship, track, findByReference, schedulePickup, cancelPickup };
}

export type DhlClient = ReturnType<typeof createDhlClient>;
