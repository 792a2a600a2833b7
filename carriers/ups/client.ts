import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { CARRIER_REASON, type Address, type Parcel } from '../../domain/index.js';
import { DEFAULT_TIMEOUT_MS } from '../http-client.js';
import { createCarrierClient, type CarrierCallSpec, type CarrierClientDeclaration } from '../kit/index.js';
import { CarrierError } from '../types.js';
import { lookUpUntil } from '../send-ledger.js';
import type { AddressVerification } from '../address-verification.js';
import { UPS_ERRORS, UPS_OPERATIONS, type UpsOperation } from './errors.js';
import { buildRateRequest, parseRateResponse, type RatedService } from './mapping-rates.js';
import { documentedAnswer } from './answers.js';
import type { OauthToken } from './schemas/index.js';
import {
  buildLabelRecoveryRequest,
  buildShipRequest,
  buildVoidRequest,
  cancelOutcomeFromError,
  parseLabelRecoveryResponse,
  parseShipResponse,
  parseVoidResponse,
  type BoughtLabel,
  type CancelOutcome,
  type UpsLabelRequestFormat,
} from './mapping-shipment.js';
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
} from './mapping-pickup.js';
import { buildUpsAddressValidationRequest, parseUpsAddressValidationResponse } from './mapping-address-check.js';
import type { UpsTerms } from './mapping-international.js';
import type { ShipmentOptions } from '../../domain/index.js';
import { parseReferenceTrackResponse, parseTrackResponse, type UpsFoundPackage, type UpsScan } from './mapping-tracking.js';
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
  /**
   * An earlier attempt's ship may still be making its label until then (epoch ms): the reference is
   * looked up until a package turns up or this has passed, never shipped again before.
   */
  settleUntil?: number;
  /** Runs just before the ship call, once nothing was found to recover; a throw sends nothing. */
  beforeShip?: () => Promise<void>;
}

const DEFAULT_BACKOFF = { attempts: 4, baseMs: 500, maxMs: 8_000 };
/**
 * UPS's ship call can take 10 s (a slow but live UPS, as measured): given up on sooner, a label may
 * still be made after we looked our reference up and found none, and UPS takes no idempotency key,
 * so the next attempt would buy a second. Its own deadline, 10 s and 2 s for the network.
 */
export const UPS_SHIP_TIMEOUT_MS = 12_000;
/** How often a reference is looked up while an earlier ship may still be making its label. */
const SETTLE_PAUSE_MS = 1_000;
/** A token is renewed this long before UPS says it expires (or at half its life when that is shorter). */
const TOKEN_MARGIN_MS = 60_000;

/** UPS's token answer (OAuth client credentials), its lifetime a string of seconds. */
function readUpsToken(body: unknown): { accessToken: string; expiresInSeconds: number } | undefined {
  const token = documentedAnswer<OauthToken.Response200>('oauth-token', body);
  // The document makes every field optional; a token is of no use without these two.
  if (!token?.access_token || !token.expires_in || !/^\d+$/.test(token.expires_in)) return undefined;
  return { accessToken: token.access_token, expiresInSeconds: Number(token.expires_in) };
}

/**
 * UPS's API as the shared client takes it: OAuth client credentials sent with HTTP Basic to
 * `/security/v1/oauth/token` (outside `/api`), the token cached and renewed; `transId` and
 * `transactionSrc` on every call; a 429 without `Retry-After`, so its own backoff; UPS's error body
 * and its hint (errors.ts).
 */
export function upsClientDeclaration(config: UpsClientConfig): CarrierClientDeclaration {
  return {
    ...UPS_ERRORS,
    baseUrl: config.url,
    timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    auth: {
      kind: 'oauth_client_credentials',
      tokenPath: '/security/v1/oauth/token',
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      credentialsIn: 'basic',
      readToken: readUpsToken,
      renewBeforeMs: (lifeMs) => Math.min(TOKEN_MARGIN_MS, lifeMs / 2),
    },
    headers: (request): Record<string, string> =>
      request.authenticated === false ? {} : { transId: randomUUID().replace(/-/g, ''), transactionSrc: config.transactionSrc ?? 'parcel-shipping' },
    limits: { backoff: config.backoff ?? DEFAULT_BACKOFF },
    ...(config.now ? { now: config.now } : {}),
    ...(config.sleep ? { sleep: config.sleep } : {}),
    ...(config.random ? { random: config.random } : {}),
    ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
  };
}

export function createUpsClient(config: UpsClientConfig) {
  const declaration = upsClientDeclaration(config);
  const http = createCarrierClient(declaration);
  const shipTimeout = { timeoutMs: Math.max(declaration.timeoutMs, UPS_SHIP_TIMEOUT_MS) };

  /** One UPS API call (under `/api`): the shared client holds the token, the backoff and the classification. */
  function call<T>(operation: UpsOperation, spec: Omit<CarrierCallSpec<T>, 'operation' | 'name' | 'path'> & { path: string }): Promise<T> {
    return http.call<T>({ ...spec, path: `/api${spec.path}`, operation: UPS_OPERATIONS[operation], name: operation, ...(operation === 'ship' ? shipTimeout : {}) });
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
      const found = await lookUpUntil(() => find(input.reference), (p) => p !== null, input.settleUntil ?? 0, SETTLE_PAUSE_MS);
      if (found && !found.voided) {
        const label = await recoverLabel({ trackingNumber: found.trackingNumber, reference: input.reference, labelFormat: input.labelFormat });
        return { trackingNumber: found.trackingNumber, label, billed: null, carrierShipmentId: found.trackingNumber };
      }
    }
    const { beforeShip, settleUntil: _settleUntil, ...ship } = input;
    const { path, body } = buildShipRequest({ ...ship, accountNumber: config.accountNumber });
    await beforeShip?.();
    return call('ship', { method: 'POST', path, body, decode: parseShipResponse });
  }

  /** Voids a label; a refusal is an outcome, faults (429, 5xx, lost answers) are thrown CarrierErrors. */
  async function cancel(carrierShipmentId: string): Promise<CancelOutcome> {
    const { method, path } = buildVoidRequest(carrierShipmentId);
    try {
      return await call('void', { method, path, decode: parseVoidResponse });
    } catch (error) {
      const refusal = error instanceof CarrierError ? cancelOutcomeFromError(error) : undefined;
      if (!refusal) throw error;
      return refusal;
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
    await call('pickup_cancel', { method: 'DELETE', path: UPS_PICKUP_CANCEL_PATH, headers: { prn }, decode: parseUpsPickupCancelResponse });
  }

  /** The account's pending on-call pickups (today's and tomorrow's, as UPS keeps them). */
  async function pendingPickups(): Promise<UpsPendingPickup[]> {
    return call('pickup_pending', { method: 'GET', path: UPS_PICKUP_PENDING_PATH, headers: { AccountNumber: config.accountNumber }, decode: parseUpsPendingPickups });
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
