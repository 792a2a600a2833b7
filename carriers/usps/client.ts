import { CARRIER_REASON, type Address, type Parcel } from '../../domain/index.js';
import { CarrierError } from '../types.js';
import {
  USPS_PAYMENT_TOKEN_LIFETIME_MS,
  buildUspsLabelRequest,
  buildUspsPaymentAuthorizationRequest,
  buildUspsRateRequests,
  buildUspsReprintRequest,
  buildUspsTokenRequest,
  parseUspsCancelRefusal,
  parseUspsCancelResponse,
  parseUspsLabelResponse,
  parseUspsMultipartLabel,
  parseUspsPaymentAuthorization,
  parseUspsRateResponse,
  parseUspsReprintResponse,
  parseUspsTokenResponse,
  parseUspsTracking,
  uspsIdempotencyKey,
  type BoughtLabel,
  type CancelOutcome,
  type LabelFormat,
  type RatedService,
  type UspsScan,
} from './mapping.js';
import { isUs, refuseBadAddresses } from './address.js';
import { localDate, usTimeZone } from '../local-time.js';
import { createUspsBudget, USPS_DEFAULT_CALLS_PER_HOUR } from './budget.js';
import { sendToUsps, uspsAnswerError, type UspsAnswer, type UspsSendOptions } from './transport.js';
import { rejectsPaymentToken } from './errors.js';
import { uspsFormCalls } from './client-forms.js';
import { uspsAddressCalls } from './addresses-client.js';
import type { UspsClient, UspsClientConfig } from './client-types.js';
import { uspsAbroadCalls } from './client-abroad.js';
import { USPS_RETURN_MAIL_CLASS } from './returns.js';
import { USPS_S10 } from './international.js';

export type { UspsClient, UspsClientConfig, UspsKeyCancel, UspsPurchase } from './client-types.js';

/** A token is renewed this long before USPS says it expires, so none expires on the way. */
const TOKEN_EXPIRY_MARGIN_MS = 60_000;

interface Cached {
  value: string;
  /** The instant after which it is not used. */
  until: number;
}

export function createUspsClient(config: UspsClientConfig): UspsClient {
  const parsed = new URL(config.url); // a misconfigured URL fails here, not on a purchase
  const baseUrl = parsed.origin + parsed.pathname.replace(/\/+$/, '');
  const now = config.now ?? Date.now;
  const sleep = config.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const timeoutMs = config.timeoutMs ?? 10_000;
  const maxWait = config.maxRetryAfterWaitMs ?? 2_000;
  const format = config.labelFormat ?? 'pdf';
  const secrets = [config.clientSecret];
  const budget = createUspsBudget({ callsPerHour: config.callsPerHour ?? USPS_DEFAULT_CALLS_PER_HOUR, now });

  let accessToken: Cached | undefined;
  let tokenInFlight: Promise<string> | undefined;
  let paymentToken: Cached | undefined;
  let paymentInFlight: Promise<string> | undefined;
  /** USPS's quota is small (60 calls an hour, tokens included): after a 429, nothing is sent until its Retry-After. */
  let blockedUntil = 0;

  /** One exchange, honouring a rate limit: waits out a short Retry-After once, throws a longer one. */
  async function send(options: UspsSendOptions): Promise<UspsAnswer> {
    for (let attempt = 0; ; attempt++) {
      const wait = blockedUntil - now();
      if (wait > 0) {
        if (wait > maxWait || attempt > 1) {
          throw new CarrierError('retryable', `USPS rate limit: next call allowed in ${Math.ceil(wait / 1000)} s`, { status: 429, carrierCode: 'usps', retryAfterMs: wait });
        }
        await sleep(wait);
      }
      budget.spend(`${options.method} ${options.path.split('?')[0]}`);
      const answer = await sendToUsps(baseUrl, options, timeoutMs, config.dispatcher);
      if (answer.status !== 429) return answer;
      const error = uspsAnswerError(answer, options.write, now());
      // Without a Retry-After, a 429 blocks nothing further: the caller's retry policy spaces it out.
      blockedUntil = Math.max(blockedUntil, now() + (error.details.retryAfterMs ?? 0));
      if (error.details.retryAfterMs === undefined || error.details.retryAfterMs > maxWait || attempt >= 1) throw redact(error);
    }
  }

  function redact(error: CarrierError): CarrierError {
    let message = error.message;
    for (const secret of [...secrets, accessToken?.value, paymentToken?.value]) {
      if (secret) message = message.split(secret).join('[redacted]');
    }
    return message === error.message ? error : new CarrierError(error.kind, message, error.details);
  }

  async function fetchAccessToken(): Promise<string> {
    const answer = await send({ method: 'POST', path: '/oauth2/v3/token', body: buildUspsTokenRequest(config.clientId, config.clientSecret), write: false });
    if (answer.status !== 200) {
      const error = uspsAnswerError(answer, false, now());
      // Wrong credentials are a setting to fix, not a moment to wait out.
      throw redact(answer.status === 400 || answer.status === 401 ? new CarrierError('definitive', `USPS refused the client credentials: ${error.message}`, error.details) : error);
    }
    const token = parseUspsTokenResponse(answer.body);
    if (!token) throw new CarrierError('retryable', 'USPS token answer without a token or a lifetime', { status: answer.status, carrierCode: 'usps' });
    const lifetime = token.expiresInSeconds * 1000;
    accessToken = { value: token.accessToken, until: now() + Math.max(lifetime - Math.min(TOKEN_EXPIRY_MARGIN_MS, lifetime / 10), 0) };
    return token.accessToken;
  }

  /** One token per process, shared by concurrent calls; renewed only when it is about to expire. */
  function bearer(): Promise<string> {
    if (accessToken && now() < accessToken.until) return Promise.resolve(accessToken.value);
    tokenInFlight ??= fetchAccessToken().finally(() => (tokenInFlight = undefined));
    return tokenInFlight;
  }

  /**
   * A call with the bearer token: after a 401 the token is renewed once and the call sent once more.
   * Only the token this call sent is dropped: calls that met the same 401 join one renewal, and a
   * call whose 401 arrives after another renewed the token sends the new one, renewing nothing.
   */
  async function authorized(options: UspsSendOptions): Promise<UspsAnswer> {
    const sent = await bearer();
    const first = await send({ ...options, headers: { ...options.headers, authorization: `Bearer ${sent}` } });
    if (first.status !== 401) return first;
    if (accessToken?.value === sent) accessToken = undefined;
    return send({ ...options, headers: { ...options.headers, authorization: `Bearer ${await bearer()}` } });
  }

  async function fetchPaymentToken(): Promise<string> {
    const body = buildUspsPaymentAuthorizationRequest({ crid: config.crid, mid: config.mid, manifestMid: config.manifestMid, accountNumber: config.accountNumber });
    const answer = await authorized({ method: 'POST', path: '/payments/v3/payment-authorization', body, write: false });
    if (answer.status !== 200) throw redact(uspsAnswerError(answer, false, now()));
    const token = parseUspsPaymentAuthorization(answer.body);
    if (!token) throw new CarrierError('retryable', 'USPS payment authorization answer without a token', { status: answer.status, carrierCode: 'usps' });
    paymentToken = { value: token, until: now() + USPS_PAYMENT_TOKEN_LIFETIME_MS };
    return token;
  }

  function payment(): Promise<string> {
    if (paymentToken && now() < paymentToken.until) return Promise.resolve(paymentToken.value);
    paymentInFlight ??= fetchPaymentToken().finally(() => (paymentInFlight = undefined));
    return paymentInFlight;
  }

  /** A labels call: the payment token too, fetched afresh once if USPS says it is no longer valid. */
  async function paid(options: UspsSendOptions): Promise<UspsAnswer> {
    const withPayment = async () => authorized({ ...options, headers: { ...options.headers, 'x-payment-authorization-token': await payment() } });
    const answer = await withPayment();
    if (!rejectsPaymentToken(answer)) return answer;
    paymentToken = undefined;
    return withPayment();
  }

  function labelOf(answer: UspsAnswer): BoughtLabel | undefined {
    const contentType = answer.headers['content-type'];
    if (typeof contentType === 'string' && /^multipart\//i.test(contentType)) return parseUspsMultipartLabel(contentType, answer.text, format);
    return parseUspsLabelResponse(answer.body, format);
  }

  function fail(answer: UspsAnswer, write: boolean): never {
    throw redact(uspsAnswerError(answer, write, now()));
  }

  function unreadable(what: string, write: boolean, status: number): never {
    // USPS did something we cannot read; for a purchase, a label may exist: settle before buying again.
    throw new CarrierError(write ? 'ambiguous' : 'retryable', `USPS ${what}: answered ${status} with a body we cannot read`, { status, carrierCode: 'usps' });
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
    refusal: (answer) => redact(uspsAnswerError(answer, false, now())),
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
    return fail(answer, true);
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
      if (answer.status !== 200) fail(answer, true);
      return labelOf(answer) ?? unreadable('label', true, answer.status);
    },

    async reprint(trackingNumber, imageFormat) {
      budget.reprint(trackingNumber);
      if (USPS_S10.test(trackingNumber)) return abroad.reprintInternational(trackingNumber, imageFormat);
      const answer = await paid({
        method: 'POST',
        path: `/labels/v3/label-reprint/${encodeURIComponent(trackingNumber)}`,
        headers: { accept: 'application/vnd.usps.labels+json' },
        body: buildUspsReprintRequest(imageFormat),
        write: false,
      });
      if (answer.status !== 200) fail(answer, false);
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
        budget.reprint(label.trackingNumber);
        return label;
      }
      const error = uspsAnswerError(answer, false, now());
      if (error.details.reason === CARRIER_REASON.notFound) return null;
      throw redact(error);
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

    quotaSpent: () => budget.spent(),

    ...uspsFormCalls({ authorized, fail, unreadable, mailingDate, refuseBadAddresses }),
    ...uspsAddressCalls({ authorized, fail, unreadable }),

    async track(trackingNumber) {
      const answer = await authorized({ method: 'GET', path: `/tracking/v3/tracking/${encodeURIComponent(trackingNumber)}?expand=DETAIL`, write: false });
      if (answer.status !== 200) fail(answer, false);
      return parseUspsTracking(answer.body) ?? unreadable('tracking', false, answer.status);
    },
  };
}
