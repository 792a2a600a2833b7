import type { Dispatcher } from 'undici';
import { CARRIER_REASON, type Address, type Parcel, type ShipmentOptions } from '../../domain/index.js';
import { DEFAULT_TIMEOUT_MS } from '../http-client.js';
import { createCarrierClient, type CarrierClientDeclaration } from '../kit/index.js';
import { CarrierError } from '../types.js';
import { FEDEX_ERRORS, FEDEX_OPERATIONS, type FedexOperation } from './errors.js';
import { buildRateRequest, FEDEX_RATE_PATH, parseRateResponse, type FedexRatedService } from './mapping-rates.js';
import { buildCancelRequest, buildShipRequest, FEDEX_CANCEL_PATH, FEDEX_SHIP_PATH, parseCancelResponse, parseShipResponse, type FedexLabel, type FedexShipInput } from './mapping-shipment.js';
import {
  buildReferenceRequest,
  buildTrackManyRequest,
  buildTrackRequest,
  FEDEX_REFERENCE_PATH,
  FEDEX_TRACK_PATH,
  parseReferenceResponse,
  parseTrackManyResponse,
  parseTrackResponse,
  type FedexFoundPackage,
  type FedexScan,
} from './mapping-tracking.js';
import {
  buildPickupCancelRequest,
  buildPickupRequest,
  FEDEX_PICKUP_CANCEL_PATH,
  FEDEX_PICKUP_PATH,
  parsePickupCancelResponse,
  parsePickupConfirmation,
  parsePickupResponse,
  type FedexPickupInput,
} from './mapping-pickup.js';

/**
 * Settings of one FedEx connection, as the config module passes them (CARRIER_FEDEX_URL,
 * CARRIER_FEDEX_CLIENT_ID, CARRIER_FEDEX_CLIENT_SECRET, CARRIER_FEDEX_ACCOUNT_NUMBER), plus test seams.
 */
export interface FedexClientConfig {
  /** FedEx's origin, `https://apis.fedex.com`: the token endpoint and every API hang under it. */
  url: string;
  clientId: string;
  clientSecret: string;
  accountNumber: string;
  timeoutMs?: number;
  now?: () => number;
  dispatcher?: Dispatcher;
}

/**
 * FedEx's API as the shared client takes it: OAuth client credentials in a form body at
 * `/oauth/token` (FedEx's API Authorization guide, as the carrier-specs README gives it), the token
 * cached and renewed; FedEx's error body and its table (errors.ts). FedEx's 429 is left to the
 * caller's retry policy with whatever `Retry-After` it carries.
 */
export function fedexClientDeclaration(config: FedexClientConfig): CarrierClientDeclaration {
  return {
    ...FEDEX_ERRORS,
    baseUrl: config.url,
    timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    auth: { kind: 'oauth_client_credentials', tokenPath: '/oauth/token', clientId: config.clientId, clientSecret: config.clientSecret, credentialsIn: 'form' },
    ...(config.now ? { now: config.now } : {}),
    ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
  };
}

export function createFedexClient(config: FedexClientConfig) {
  const http = createCarrierClient(fedexClientDeclaration(config));
  const now = config.now ?? Date.now;

  /** One FedEx API call: the shared client holds the token, the limits and the one classification. */
  function call<T>(operation: FedexOperation, method: 'POST' | 'PUT', path: string, body: unknown, decode: (answer: unknown) => T | undefined): Promise<T> {
    return http.call<T>({ operation: FEDEX_OPERATIONS[operation], name: operation, method, path, body, decode });
  }

  async function rate(input: { from: Address; to: Address; parcel: Parcel; service: string; options?: ShipmentOptions; currency?: string; isReturn?: boolean }): Promise<FedexRatedService[]> {
    return call('rate', 'POST', FEDEX_RATE_PATH, buildRateRequest({ ...input, accountNumber: config.accountNumber }), parseRateResponse);
  }

  async function ship(input: Omit<FedexShipInput, 'accountNumber'>): Promise<FedexLabel> {
    return call('ship', 'POST', FEDEX_SHIP_PATH, buildShipRequest({ ...input, accountNumber: config.accountNumber }), parseShipResponse);
  }

  /** Cancels a shipment; FedEx's refusal (`cancelledShipment` false) is an answer, faults are thrown. */
  async function cancel(trackingNumber: string): Promise<{ cancelled: boolean; message: string }> {
    return call('cancel', 'PUT', FEDEX_CANCEL_PATH, buildCancelRequest({ accountNumber: config.accountNumber, trackingNumber }), parseCancelResponse);
  }

  /** Every scan, oldest first. A tracking number FedEx does not know is a `not_found` CarrierError. */
  async function track(trackingNumber: string): Promise<FedexScan[]> {
    const answer = await call('track', 'POST', FEDEX_TRACK_PATH, buildTrackRequest(trackingNumber), (body) => parseTrackResponse(body, trackingNumber));
    if (answer === null) throw new CarrierError('definitive', `FedEx does not know tracking number ${trackingNumber}`, { carrierCode: 'fedex', reason: CARRIER_REASON.notFound });
    return answer;
  }

  /** Up to 30 numbers' scans in one call, oldest first each; null for a number FedEx does not know. */
  async function trackMany(trackingNumbers: readonly string[]): Promise<Map<string, FedexScan[] | null>> {
    return call('track', 'POST', FEDEX_TRACK_PATH, buildTrackManyRequest(trackingNumbers), (body) => parseTrackManyResponse(body, trackingNumbers));
  }

  /** The packages shipped under our reference (around `at`); empty when FedEx has none. */
  async function find(reference: string, at?: string): Promise<FedexFoundPackage[]> {
    const body = buildReferenceRequest({ reference, accountNumber: config.accountNumber, around: at ? new Date(at) : new Date(now()) });
    try {
      return await call('reference', 'POST', FEDEX_REFERENCE_PATH, body, (answer) => parseReferenceResponse(answer, reference));
    } catch (error) {
      if (error instanceof CarrierError && error.details.reason === CARRIER_REASON.notFound) return [];
      throw error;
    }
  }

  async function schedulePickup(input: Omit<FedexPickupInput, 'accountNumber' | 'now'>): Promise<string> {
    const body = buildPickupRequest({ ...input, accountNumber: config.accountNumber, now: new Date(now()) });
    return call('pickup', 'POST', FEDEX_PICKUP_PATH, body, (answer) => parsePickupResponse(answer, body));
  }

  async function cancelPickup(confirmation: string): Promise<void> {
    const parsed = parsePickupConfirmation(confirmation);
    if (!parsed) throw new CarrierError('definitive', `not a FedEx pickup confirmation of ours: ${confirmation}`, { carrierCode: 'fedex', reason: CARRIER_REASON.notFound });
    await call('pickup_cancel', 'PUT', FEDEX_PICKUP_CANCEL_PATH, buildPickupCancelRequest(config.accountNumber, parsed), parsePickupCancelResponse);
  }

  return { rate, ship, cancel, track, trackMany, find, schedulePickup, cancelPickup };
}

export type FedexClient = ReturnType<typeof createFedexClient>;
