import { randomUUID } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { request, type Dispatcher } from 'undici';
import { CARRIER_REASON, type Address, type Parcel } from '../../domain/index.js';
import { createCarrierHttpClient, DEFAULT_TIMEOUT_MS, type CarrierCall, type CarrierOperation } from '../http-client.js';
import { CarrierError } from '../types.js';
import type { AddressVerification } from '../address-verification.js';
import { classifyUpsError, readUpsError, type UpsOperation } from './errors.js';
import { buildRateRequest, parseRateResponse, type RatedService } from './rating.js';
import { TokenResponse } from './schemas.js';
import {
  buildLabelRecoveryRequest,
  buildShipRequest,
  buildVoidRequest,
  parseLabelRecoveryResponse,
  parseShipResponse,
  parseVoidResponse,
  type BoughtLabel,
  type CancelOutcome,
  type UpsLabelRequestFormat,
} from './shipping.js';
import {
  buildUpsPickupRequest,
  parseUpsPendingPickups,
  parseUpsPickupCancelResponse,
  parseUpsPickupResponse,
  UPS_PICKUP_CANCEL_PATH,
  UPS_PICKUP_PATH,
  UPS_PICKUP_PENDING_PATH,
  type UpsBookedPickup,
  type UpsPendingPickup,
  type UpsPickupInput,
} from './pickup.js';
import { buildUpsAddressValidationRequest, parseUpsAddressValidationResponse } from './address-validation.js';
import type { UpsTerms } from './international.js';
import type { ShipmentOptions } from '../../domain/index.js';
import { parseReferenceTrackResponse, parseTrackResponse, type UpsFoundPackage, type UpsScan } from './tracking.js';
import { buildTrackAlertSubscription, parseTrackAlertSubscription, TRACK_ALERT_SUBSCRIBE_PATH } from './track-alert.js';

/**
 * Settings of one UPS connection, as the config module passes them (CARRIER_UPS_URL,
 * CARRIER_UPS_CLIENT_ID, CARRIER_UPS_CLIENT_SECRET, CARRIER_UPS_ACCOUNT_NUMBER), plus test seams.
 */
export interface UpsClientConfig {
  /** UPS's origin, `https://onlinetools.ups.com` (the APIs live under `/api`, the token endpoint outside it). */
  url: string;
  clientId: string;
  clientSecret: string;
  /** The six-character UPS account: `Shipper.ShipperNumber` and the bill-shipper account. */
  accountNumber: string;
  /** Deadline of each HTTP call (default 5000 ms). */
  timeoutMs?: number;
  /** `transactionSrc` header: who is calling (Tracking requires it). */
  transactionSrc?: string;
  /** UPS answers 429 without `Retry-After`: this many waits, exponential with full jitter, capped. */
  backoff?: { attempts: number; baseMs: number; maxMs: number };
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  dispatcher?: Dispatcher;
}

export interface UpsBuyInput extends UpsTerms {
  /** Our shipment id: UPS's reference for the package, the same on every retry. */
  reference: string;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  labelFormat: UpsLabelRequestFormat;
  /** An earlier attempt may have bought it (its answer was lost): look it up by reference first. */
  earlierAttempt?: boolean;
}

const DEFAULT_BACKOFF = { attempts: 4, baseMs: 500, maxMs: 8_000 };
/** A token is renewed this long before UPS says it expires (or at half its life when that is shorter). */
const TOKEN_MARGIN_MS = 60_000;

/** Our operations as the shared HTTP client knows them: it decides what a lost answer means. */
const HTTP_OPERATION: Record<Exclude<UpsOperation, 'token'>, CarrierOperation> = {
  rate: 'quote',
  ship: 'buy',
  void: 'cancel',
  recover: 'lookup',
  reference: 'lookup',
  track: 'track',
  pickup: 'buy',
  pickup_cancel: 'cancel',
  pickup_pending: 'lookup',
  address: 'lookup',
};

export function createUpsClient(config: UpsClientConfig) {
  const origin = config.url.replace(/\/+$/, '');
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = config.now ?? Date.now;
  const sleep = config.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = config.random ?? Math.random;
  const backoff = config.backoff ?? DEFAULT_BACKOFF;
  const http = createCarrierHttpClient({ carrierCode: 'ups', baseUrl: `${origin}/api`, timeoutMs, readError: readUpsError, dispatcher: config.dispatcher });

  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;

  /** The cached token, or one new token shared by every caller waiting for it. */
  function token(): Promise<string> {
    if (cached && now() < cached.renewAt) return Promise.resolve(cached.token);
    pending ??= withBackoff(fetchToken).finally(() => {
      pending = undefined;
    });
    return pending;
  }

  async function fetchToken(): Promise<string> {
    const basic = Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64');
    let status: number;
    let text: string;
    try {
      const response = await request(`${origin}/security/v1/oauth/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      // Asking for a token buys nothing: whatever happened, trying again is safe.
      throw new CarrierError('retryable', `ups token: ${error instanceof Error ? error.message : String(error)}`, { carrierCode: 'ups' });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (status === 200 && Value.Check(TokenResponse, body)) {
      const lifeMs = Number(body.expires_in) * 1000;
      cached = { token: body.access_token, renewAt: now() + lifeMs - Math.min(TOKEN_MARGIN_MS, lifeMs / 2) };
      return body.access_token;
    }
    const info = readUpsError(body);
    const details = { status, carrierCode: 'ups', ...(info.code ? { carrierErrorCode: info.code } : {}) };
    // The credentials are never part of a message: only UPS's answer is.
    if (status === 429 || status >= 500) throw new CarrierError('retryable', `ups token: HTTP ${status}${info.message ? `: ${info.message}` : ''}`, details);
    if (status === 200) throw new CarrierError('retryable', 'ups token: an answer without a usable token', details);
    throw new CarrierError('definitive', `UPS refused the client credentials (HTTP ${status}${info.message ? `: ${info.message}` : ''})`, details);
  }

  /** Runs `attempt`, waiting after each 429 on our own schedule (UPS sends no `Retry-After`). */
  async function withBackoff<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 0; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof CarrierError) || error.details.status !== 429 || n >= backoff.attempts) throw error;
        await sleep(Math.floor(random() * Math.min(backoff.maxMs, backoff.baseMs * 2 ** n)));
      }
    }
  }

  /** One UPS API call with a bearer token: one refresh and one retry after a 401, backoff after 429s. */
  async function call<T>(operation: Exclude<UpsOperation, 'token'>, spec: Omit<CarrierCall<T>, 'operation' | 'headers'> & { extraHeaders?: Record<string, string> }): Promise<T> {
    const { extraHeaders, ...rest } = spec;
    let refreshed = false;
    for (;;) {
      const bearer = await token();
      try {
        return await withBackoff(() =>
          http.call<T>({
            ...rest,
            operation: HTTP_OPERATION[operation],
            headers: { ...extraHeaders, authorization: `Bearer ${bearer}`, transId: randomUUID().replace(/-/g, ''), transactionSrc: config.transactionSrc ?? 'parcel-shipping' },
          }),
        );
      } catch (error) {
        if (!(error instanceof CarrierError)) throw error;
        if (error.details.status === 401 && !refreshed) {
          // A token UPS no longer takes (expired early, revoked): one new token, one more try.
          refreshed = true;
          if (cached?.token === bearer) cached = undefined;
          continue;
        }
        throw reclassify(error, operation);
      }
    }
  }

  /** A refusal (4xx) classified by the UPS mapping, which also reads the reasons from UPS's words. */
  function reclassify(error: CarrierError, operation: UpsOperation): CarrierError {
    const status = error.details.status;
    if (error.kind !== 'definitive' || status === undefined) return error;
    const c = classifyUpsError(status, { code: error.details.carrierErrorCode, message: error.message }, operation);
    return new CarrierError(c.kind, c.message, {
      status,
      carrierCode: 'ups',
      ...(c.carrierErrorCode ? { carrierErrorCode: c.carrierErrorCode } : {}),
      ...(c.reason ? { reason: c.reason } : {}),
    });
  }

  async function rate(input: { from: Address; to: Address; parcel: Parcel; service: string; options?: ShipmentOptions; currency?: string; isReturn?: boolean }): Promise<RatedService[]> {
    const { path, body } = buildRateRequest({ ...input, accountNumber: config.accountNumber });
    return call('rate', { method: 'POST', path, body, decode: parseRateResponse });
  }

  async function recoverLabel(input: { trackingNumber: string; reference: string; labelFormat: UpsLabelRequestFormat }): Promise<BoughtLabel['label']> {
    const { path, body } = buildLabelRecoveryRequest({ ...input, accountNumber: config.accountNumber });
    return call('recover', { method: 'POST', path, body, decode: (answer) => parseLabelRecoveryResponse(answer, input.trackingNumber) });
  }

  /** The package bought with our reference, or null when UPS has none (then buying again is safe). */
  async function find(reference: string): Promise<UpsFoundPackage | null> {
    try {
      const found = await call('reference', {
        method: 'GET',
        path: `/track/v1/reference/details/${encodeURIComponent(reference)}`,
        query: { shipperNum: config.accountNumber, refNumType: 'SmallPackage' },
        decode: (answer) => parseReferenceTrackResponse(answer, reference),
      });
      return found.find((p) => !p.voided) ?? found[0] ?? null;
    } catch (error) {
      if (error instanceof CarrierError && error.details.reason === CARRIER_REASON.notFound) return null;
      throw error;
    }
  }

  async function buy(input: UpsBuyInput): Promise<BoughtLabel> {
    if (input.earlierAttempt) {
      // UPS has no idempotency key: the reference lookup is how a lost answer is settled.
      const found = await find(input.reference);
      if (found && !found.voided) {
        const label = await recoverLabel({ trackingNumber: found.trackingNumber, reference: input.reference, labelFormat: input.labelFormat });
        return { trackingNumber: found.trackingNumber, label, billed: null, carrierShipmentId: found.trackingNumber };
      }
    }
    const { path, body } = buildShipRequest({ ...input, accountNumber: config.accountNumber });
    return call('ship', { method: 'POST', path, body, decode: parseShipResponse });
  }

  /** Voids a label; a refusal is an outcome, faults (429, 5xx, lost answers) are thrown CarrierErrors. */
  async function cancel(carrierShipmentId: string): Promise<CancelOutcome> {
    const { method, path } = buildVoidRequest(carrierShipmentId);
    try {
      return await call('void', { method, path, decode: parseVoidResponse });
    } catch (error) {
      if (!(error instanceof CarrierError) || error.kind !== 'definitive') throw error;
      const status = error.details.status;
      if (status === undefined || status === 401 || status === 403) throw error;
      return { kind: 'refused', reason: error.details.reason === CARRIER_REASON.alreadyScanned ? 'already_scanned' : 'not_cancellable', message: error.message };
    }
  }

  /** Every scan, oldest first. A tracking number UPS does not know is a `not_found` CarrierError. */
  async function track(trackingNumber: string): Promise<UpsScan[]> {
    return call('track', {
      method: 'GET',
      path: `/track/v1/details/${encodeURIComponent(trackingNumber)}`,
      query: { locale: 'en_US', returnSignature: 'false', returnMilestones: 'false', returnPOD: 'false' },
      decode: (answer) => parseTrackResponse(answer, trackingNumber),
    });
  }

  /** Books an on-call pickup, rated: its PRN and fee. */
  async function schedulePickup(input: Omit<UpsPickupInput, 'accountNumber'>): Promise<UpsBookedPickup> {
    const body = buildUpsPickupRequest({ ...input, accountNumber: config.accountNumber });
    return call('pickup', { method: 'POST', path: UPS_PICKUP_PATH, body, decode: parseUpsPickupResponse });
  }

  /** Cancels a pickup by its PRN (sent in the `Prn` header, as the document says). */
  async function cancelPickup(prn: string): Promise<void> {
    await call('pickup_cancel', { method: 'DELETE', path: UPS_PICKUP_CANCEL_PATH, extraHeaders: { prn }, decode: parseUpsPickupCancelResponse });
  }

  /** The account's pending on-call pickups (today's and tomorrow's, as UPS keeps them). */
  async function pendingPickups(): Promise<UpsPendingPickup[]> {
    return call('pickup_pending', { method: 'GET', path: UPS_PICKUP_PENDING_PATH, extraHeaders: { AccountNumber: config.accountNumber }, decode: parseUpsPendingPickups });
  }

  /** Street-level validation and classification of one US or Puerto Rico address; a no-match is an answer. */
  async function validateAddress(address: Address): Promise<AddressVerification> {
    const { path, query, body } = buildUpsAddressValidationRequest(address);
    return call('address', { method: 'POST', path, query, body, decode: (answer) => parseUpsAddressValidationResponse(answer, address) });
  }

  /** Subscribes packages to Track Alert (track-alert.ts): the numbers UPS took and those it refused. */
  async function subscribeTrackAlert(numbers: readonly string[]): Promise<{ subscribed: string[]; refused: string[] }> {
    const body = buildTrackAlertSubscription(numbers);
    return call('track', { method: 'POST', path: TRACK_ALERT_SUBSCRIBE_PATH, body, decode: (answer) => parseTrackAlertSubscription(answer, numbers) });
  }

  return { rate, buy, find, recoverLabel, cancel, track, schedulePickup, cancelPickup, pendingPickups, validateAddress, subscribeTrackAlert };
}

export type UpsClient = ReturnType<typeof createUpsClient>;
