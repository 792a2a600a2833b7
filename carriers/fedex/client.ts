import { request, type Dispatcher } from 'undici';
import { CARRIER_REASON, type Address, type Parcel, type ShipmentOptions } from '../../domain/index.js';
import { createCarrierHttpClient, DEFAULT_TIMEOUT_MS, type CarrierOperation } from '../http-client.js';
import { CarrierError } from '../types.js';
import { classifyFedexError, readFedexError, type FedexOperation } from './errors.js';
import { buildRateRequest, FEDEX_RATE_PATH, parseRateResponse, type FedexRatedService } from './mapping-rate.js';
import { buildCancelRequest, buildShipRequest, FEDEX_CANCEL_PATH, FEDEX_SHIP_PATH, parseCancelResponse, parseShipResponse, type FedexLabel, type FedexShipInput } from './mapping-ship.js';
import { buildReferenceRequest, buildTrackRequest, FEDEX_REFERENCE_PATH, FEDEX_TRACK_PATH, parseReferenceResponse, parseTrackResponse, type FedexFoundPackage, type FedexScan } from './mapping-track.js';
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

/** Our operations as the shared HTTP client knows them: it decides what a lost answer means. */
const HTTP_OPERATION: Record<FedexOperation, CarrierOperation> = {
  rate: 'quote',
  ship: 'buy',
  cancel: 'cancel',
  track: 'track',
  reference: 'lookup',
  pickup: 'buy',
  pickup_cancel: 'cancel',
};

/** A token is renewed this long before FedEx says it expires (or at half its life when that is shorter). */
const TOKEN_MARGIN_MS = 60_000;

export function createFedexClient(config: FedexClientConfig) {
  const origin = config.url.replace(/\/+$/, '');
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = config.now ?? Date.now;
  const http = createCarrierHttpClient({ carrierCode: 'fedex', baseUrl: origin, timeoutMs, readError: readFedexError, dispatcher: config.dispatcher });
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;

  /** The cached token, or one new token shared by every caller waiting for it. */
  function token(): Promise<string> {
    if (cached && now() < cached.renewAt) return Promise.resolve(cached.token);
    pending ??= fetchToken().finally(() => {
      pending = undefined;
    });
    return pending;
  }

  /** `POST /oauth/token`, client credentials in a form body (FedEx's API Authorization guide). */
  async function fetchToken(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: config.clientId, client_secret: config.clientSecret });
    let status: number;
    let text: string;
    try {
      const response = await request(`${origin}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      // Asking for a token buys nothing: whatever happened, trying again is safe.
      throw new CarrierError('retryable', `fedex token: ${error instanceof Error ? error.message : String(error)}`, { carrierCode: 'fedex' });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const answer = body as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (status === 200 && typeof answer?.access_token === 'string' && answer.access_token !== '' && Number(answer.expires_in) > 0) {
      const lifeMs = Number(answer.expires_in) * 1000;
      cached = { token: answer.access_token, renewAt: now() + lifeMs - Math.min(TOKEN_MARGIN_MS, lifeMs / 2) };
      return answer.access_token;
    }
    const info = readFedexError(body);
    const details = { status, carrierCode: 'fedex', ...(info.code ? { carrierErrorCode: info.code } : {}) };
    // The credentials are never part of a message: only FedEx's answer is.
    if (status === 429 || status >= 500) throw new CarrierError('retryable', `fedex token: HTTP ${status}${info.message ? `: ${info.message}` : ''}`, details);
    if (status === 200) throw new CarrierError('retryable', 'fedex token: an answer without a usable token', details);
    throw new CarrierError('definitive', `FedEx refused the client credentials (HTTP ${status}${info.message ? `: ${info.message}` : ''})`, details);
  }

  /** One FedEx API call with a bearer token: one new token and one more try when FedEx no longer takes it. */
  async function call<T>(operation: FedexOperation, method: 'POST' | 'PUT', path: string, body: unknown, decode: (answer: unknown) => T | undefined): Promise<T> {
    let refreshed = false;
    for (;;) {
      const bearer = await token();
      try {
        // The shared client's type names no PUT; undici sends the method it is given.
        return await http.call<T>({ operation: HTTP_OPERATION[operation], method: method as 'POST', path, body, headers: { authorization: `Bearer ${bearer}` }, decode });
      } catch (error) {
        if (!(error instanceof CarrierError) || error.kind !== 'definitive' || error.details.status === undefined) throw error;
        const c = classifyFedexError(error.details.status, { code: error.details.carrierErrorCode, message: error.message }, operation);
        if (c.kind === 'refresh' && !refreshed) {
          refreshed = true;
          if (cached?.token === bearer) cached = undefined;
          continue;
        }
        throw new CarrierError(c.kind === 'refresh' ? 'definitive' : c.kind, c.message, {
          status: error.details.status,
          carrierCode: 'fedex',
          ...(c.carrierErrorCode ? { carrierErrorCode: c.carrierErrorCode } : {}),
          ...(c.reason ? { reason: c.reason } : {}),
        });
      }
    }
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
    if (answer === 'not_found') throw new CarrierError('definitive', `FedEx does not know tracking number ${trackingNumber}`, { carrierCode: 'fedex', reason: CARRIER_REASON.notFound });
    return answer;
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

  return { rate, ship, cancel, track, find, schedulePickup, cancelPickup };
}

export type FedexClient = ReturnType<typeof createFedexClient>;
