import { CARRIER_REASON, type Address, type Parcel } from '../../domain/index.js';
import { CarrierError } from '../types.js';
import {
  USPS_PAYMENT_TOKEN_LIFETIME_MS,
  buildUspsLabelRequest,
  buildUspsPaymentAuthorizationRequest,
  buildUspsRateRequests,
  buildUspsReprintRequest,
  parseUspsCancelRefusal,
  parseUspsCancelResponse,
  parseUspsLabelResponse,
  parseUspsMultipartLabel,
  parseUspsPaymentAuthorization,
  parseUspsRateResponse,
  parseUspsReprintResponse,
  parseUspsTracking,
  uspsIdempotencyKey,
  type BoughtLabel,
  type CancelOutcome,
  type LabelFormat,
  type RatedService,
  type UspsScan,
} from './mapping.js';
import { isUs, refuseBadAddresses } from './mapping-address.js';
import { localDate, usTimeZone } from '../local-time.js';
import { rejectsPaymentToken, USPS_ERRORS } from './errors.js';
import { createCarrierClient, createTokenCache, type CarrierClientDeclaration, type CarrierRequest } from '../kit/index.js';
import { uspsFormCalls } from './client-forms.js';
import { uspsAddressCalls } from './client-addresses.js';
import type { UspsAnswer, UspsClient, UspsClientConfig, UspsSendOptions } from './client-types.js';
import { uspsAbroadCalls } from './client-abroad.js';
import { USPS_RETURN_MAIL_CLASS } from './mapping-returns.js';
import { USPS_S10 } from './mapping-international.js';

export type { UspsAnswer, UspsClient, UspsClientConfig, UspsKeyCancel, UspsPurchase, UspsSendOptions } from './client-types.js';

/** The document's reprint limit: "Labels can only be reprinted up to 3 times." */
export const USPS_REPRINTS_PER_LABEL = 3;
/** USPS's default quota for an application: 60 calls an hour, token requests included. */
export const USPS_DEFAULT_CALLS_PER_HOUR = 60;

/**
 * Each label's reprints, counted before each is sent: a reprint beyond a label's three is refused
 * for good, as USPS would refuse it. (The hour's quota of calls, tokens included, is the shared
 * client's: `limits.callsPerHour` of USPS's declaration.) Counted per process.
 */
export function createUspsReprints() {
  const reprints = new Map<string, number>();
  return {
    /** Counts one reprint of a label, or throws when its three are spent (USPS would refuse it). */
    reprint(trackingNumber: string): void {
      const done = reprints.get(trackingNumber) ?? 0;
      if (done >= USPS_REPRINTS_PER_LABEL) {
        throw new CarrierError('definitive', `USPS reprints a label at most ${USPS_REPRINTS_PER_LABEL} times; ${trackingNumber} has had them`, { carrierCode: 'usps' });
      }
      reprints.set(trackingNumber, done + 1);
    },
  };
}

/**
 * USPS's APIs as the shared client takes them: OAuth client credentials in a JSON body at
 * `/oauth2/v3/token`, the token cached and renewed; USPS's quota of calls an hour, tokens included
 * (60 by default), and its 429s, whose `Retry-After` holds every call until then (a short one waited
 * in place); USPS's error bodies and its hint (errors.ts). A path after the origin is kept in front
 * of each API's own (a gateway's prefix, the simulator's `/usps`).
 */
export function uspsClientDeclaration(config: UspsClientConfig): CarrierClientDeclaration {
  return {
    ...USPS_ERRORS,
    baseUrl: config.url,
    // Label generation is slow at USPS.
    timeoutMs: config.timeoutMs ?? 10_000,
    auth: {
      kind: 'oauth_client_credentials',
      tokenPath: '/oauth2/v3/token',
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      // The getting-started guide accepts JSON or a form; expires_in comes as a number or a string of digits.
      credentialsIn: 'json',
    },
    limits: { callsPerHour: config.callsPerHour ?? USPS_DEFAULT_CALLS_PER_HOUR, maxRetryAfterWaitMs: config.maxRetryAfterWaitMs ?? 2_000 },
    ...(config.now ? { now: config.now } : {}),
    ...(config.sleep ? { sleep: config.sleep } : {}),
    ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
  };
}

/** A request as the shared client takes it: its name (method and path) in messages, a write where a lost answer may mean it happened. */
function toRequest(options: UspsSendOptions): CarrierRequest {
  return {
    operation: options.write ? 'buy' : 'lookup',
    name: `${options.method} ${options.path.split('?')[0]}`,
    method: options.method,
    path: options.path,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.body === undefined ? {} : { body: options.body }),
  };
}

export function createUspsClient(config: UspsClientConfig): UspsClient {
  const http = createCarrierClient(uspsClientDeclaration(config));
  const now = config.now ?? Date.now;
  const format = config.labelFormat ?? 'pdf';
  const reprints = createUspsReprints();

  /** A call with the bearer token (renewed once after a 401), USPS's limits kept by the shared client. */
  async function authorized(options: UspsSendOptions): Promise<UspsAnswer> {
    const request = toRequest(options);
    return { ...(await http.send(request)), request };
  }

  /** The payment authorization, which buying and cancelling labels need beside the bearer token: it lasts eight hours. */
  const paymentToken = createTokenCache({
    now,
    renewBeforeMs: () => 0,
    async fetch() {
      const body = buildUspsPaymentAuthorizationRequest({ crid: config.crid, mid: config.mid, manifestMid: config.manifestMid, accountNumber: config.accountNumber });
      const answer = await authorized({ method: 'POST', path: '/payments/v3/payment-authorization', body, write: false });
      if (answer.status !== 200) fail(answer);
      const token = parseUspsPaymentAuthorization(answer.body);
      if (!token) throw new CarrierError('retryable', 'USPS payment authorization answer without a token', { status: answer.status, carrierCode: 'usps' });
      return { value: token, lifeMs: USPS_PAYMENT_TOKEN_LIFETIME_MS };
    },
  });

  /** A labels call: the payment token too, fetched afresh once if USPS says it is no longer valid. */
  async function paid(options: UspsSendOptions): Promise<UspsAnswer> {
    const withPayment = async () => {
      const token = await paymentToken.get();
      return { token, answer: await authorized({ ...options, headers: { ...options.headers, 'x-payment-authorization-token': token } }) };
    };
    const first = await withPayment();
    if (!rejectsPaymentToken(first.answer)) return first.answer;
    paymentToken.drop(first.token);
    return (await withPayment()).answer;
  }

  /** A failed answer, classified once by the shared client; the payment token is never in its message. */
  function failure(answer: UspsAnswer): CarrierError {
    const error = http.failure(answer.request, answer);
    const token = paymentToken.current();
    return token && error.message.includes(token) ? new CarrierError(error.kind, error.message.split(token).join('[redacted]'), error.details) : error;
  }

  function fail(answer: UspsAnswer): never {
    throw failure(answer);
  }

  function unreadable(what: string, write: boolean, status: number): never {
    // USPS did something we cannot read; for a purchase, a label may exist: settle before buying again.
    throw http.unreadable({ operation: write ? 'buy' : 'lookup', method: 'POST', path: '' }, status, what);
  }

  function labelOf(answer: UspsAnswer): BoughtLabel | undefined {
    const contentType = answer.headers['content-type'];
    if (typeof contentType === 'string' && /^multipart\//i.test(contentType)) return parseUspsMultipartLabel(contentType, answer.text, format);
    return parseUspsLabelResponse(answer.body, format);
  }

  /**
   * The mailing date sent with prices, labels and SCAN forms: the sender's own date (its state's or
   * ZIP's zone), at `at` or now. Guam's and the other Pacific islands' day is ahead of UTC's.
   */
  const mailingDate = (from: Address, at?: string) => localDate(at ?? new Date(now()), usTimeZone(from));

  const abroad = uspsAbroadCalls({
    authorized,
    paid,
    fail,
    unreadable,
    refusal: failure,
    mailingDate,
    accountNumber: config.accountNumber,
    format,
  });

  /** A cancellation's outcome, and the tracking number its answer names (absent in a refusal). */
  async function cancelWith(options: UspsSendOptions): Promise<{ outcome: CancelOutcome; trackingNumber?: string }> {
    const answer = await paid(options);
    if (answer.status === 200) {
      const outcome = parseUspsCancelResponse(answer.body) ?? unreadable('cancel', true, answer.status);
      const trackingNumber = (answer.body as { trackingNumber?: unknown }).trackingNumber;
      return typeof trackingNumber === 'string' ? { outcome, trackingNumber } : { outcome };
    }
    const refusal = parseUspsCancelRefusal(answer.status, answer.body);
    if (refusal) return { outcome: refusal };
    return fail(answer);
  }

  return {
    async rate(from, to, parcel, serviceCode, terms = {}) {
      // USPS sells labels mailed from the US (and its territories); abroad, no returns.
      if (!isUs(from) || (!isUs(to) && terms.isReturn)) return [];
      refuseBadAddresses(from, isUs(to) ? to : from);
      const priced = isUs(to)
        ? await Promise.all(
            buildUspsRateRequests(from, to, parcel, serviceCode, mailingDate(from), { accountNumber: config.accountNumber }).map(({ service, body }) =>
              abroad.domesticPrice(service, body, terms.options, terms.isReturn ? USPS_RETURN_MAIL_CLASS[service.code] : service.mailClass),
            ),
          )
        : await abroad.rateInternational(from, to, parcel, serviceCode, terms.options);
      const prices = priced.filter((r): r is RatedService => !(r instanceof CarrierError));
      const refusals = priced.filter((r): r is CarrierError => r instanceof CarrierError);
      // Refused for every mail class asked: the quote says so with USPS's reason, never an empty answer.
      if (prices.length === 0 && refusals.length > 0) {
        throw new CarrierError('definitive', `USPS priced none of the services asked: ${[...new Set(refusals.map((r) => r.message))].join('; ')}`, refusals[0].details);
      }
      return prices;
    },

    async buy(purchase) {
      if (!isUs(purchase.to)) return abroad.buyInternational(purchase);
      refuseBadAddresses(purchase.from, purchase.to);
      if (purchase.isReturn) return abroad.buyReturn(purchase);
      const { idempotencyKey, body } = buildUspsLabelRequest({ ...purchase, format, mailingDate: mailingDate(purchase.from, purchase.at) });
      const answer = await paid({
        method: 'POST',
        path: '/labels/v3/label',
        // One JSON object with the image in base64; without this Accept, USPS answers multipart/form-data.
        headers: { accept: 'application/vnd.usps.labels+json', 'x-idempotency-key': idempotencyKey },
        body,
        write: true,
      });
      if (answer.status !== 200) fail(answer);
      return labelOf(answer) ?? unreadable('label', true, answer.status);
    },

    async reprint(trackingNumber, imageFormat) {
      reprints.reprint(trackingNumber);
      if (USPS_S10.test(trackingNumber)) return abroad.reprintInternational(trackingNumber, imageFormat);
      const answer = await paid({
        method: 'POST',
        path: `/labels/v3/label-reprint/${encodeURIComponent(trackingNumber)}`,
        headers: { accept: 'application/vnd.usps.labels+json' },
        body: buildUspsReprintRequest(imageFormat),
        write: false,
      });
      if (answer.status !== 200) fail(answer);
      return parseUspsReprintResponse(answer.body, imageFormat) ?? unreadable('label reprint', false, answer.status);
    },

    async reprintByKey(shipmentId, imageFormat) {
      const answer = await paid({
        method: 'POST',
        path: '/labels/v3/label-reprint',
        headers: { accept: 'application/vnd.usps.labels+json', 'x-idempotency-key': uspsIdempotencyKey(shipmentId) },
        body: buildUspsReprintRequest(imageFormat),
        write: false,
      });
      if (answer.status === 200) {
        const label = parseUspsReprintResponse(answer.body, imageFormat) ?? unreadable('label reprint', false, answer.status);
        reprints.reprint(label.trackingNumber);
        return label;
      }
      const error = failure(answer);
      if (error.details.reason === CARRIER_REASON.notFound) return null;
      throw error;
    },

    async cancel(trackingNumber) {
      // International labels (S10 numbers) are cancelled through the international labels API.
      const api = USPS_S10.test(trackingNumber) ? '/international-labels/v3/international-label' : '/labels/v3/label';
      return (await cancelWith({ method: 'DELETE', path: `${api}/${encodeURIComponent(trackingNumber)}`, write: true })).outcome;
    },

    async cancelByShipment(shipmentId) {
      const byKey = (path: string) => cancelWith({ method: 'DELETE', path, headers: { 'x-idempotency-key': uspsIdempotencyKey(shipmentId) }, write: true });
      // The key's label is domestic or, when domestic-labels knows none, international: each API cancels its own.
      const { outcome, trackingNumber } = await byKey('/labels/v3/label').catch((error: unknown) => {
        if (error instanceof CarrierError && error.details.reason === CARRIER_REASON.notFound) return byKey('/international-labels/v3/international-label');
        throw error;
      });
      return trackingNumber === undefined ? outcome : { ...outcome, trackingNumber };
    },

    quotaSpent: () => http.callsSpent(),

    ...uspsFormCalls({ authorized, fail, unreadable, mailingDate, refuseBadAddresses }),
    ...uspsAddressCalls({ authorized, fail, unreadable }),

    async track(trackingNumber) {
      const answer = await authorized({ method: 'GET', path: `/tracking/v3/tracking/${encodeURIComponent(trackingNumber)}?expand=DETAIL`, write: false });
      if (answer.status !== 200) fail(answer);
      return parseUspsTracking(answer.body) ?? unreadable('tracking', false, answer.status);
    },
  };
}
