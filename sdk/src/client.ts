import { randomUUID } from 'node:crypto';
import { ParcelShippingConnectionError, ParcelShippingError, type ErrorCode, type Problem } from './errors.js';
import { addressResource } from './addresses.js';
import { batchResource, pickupResource, scanFormResource, type Transport } from './forms.js';
import { assertSendable, backoffMs, defaultRetryable, joinRetryable, refusedBeforeRetryable, retryAfterSeconds, sleep } from './retry.js';
import type {
  Balance, DeletedWebhookEndpoint, Event, EventListParams, LabelFormat, LabelLink, Page, PageParams, QuoteCreateParams, QuoteItem, ReturnCreateParams,
  SandboxScan, SandboxScanParams, Shipment, ShipmentCreateParams, ShipmentDocument, ShipmentListParams, Tracking, WebhookDelivery, WebhookEndpoint,
  WebhookEndpointCreateParams, WebhookEndpointWithSecret,
} from './types.js';

export interface ClientOptions {
  /** `svc_test_…` (sandbox) or `svc_live_…`. */
  apiKey: string;
  /**
   * Where the API is: its origin, `https://api.example.com`, or its base URL as the spec writes
   * `{base_url}`, `https://api.example.com/api/v1`; both work (one trailing `/api/v1` is dropped).
   */
  baseUrl: string;
  /** Retries of a request after a network error, 409 idempotency_key_in_use, 429 or 5xx (not 502 carrier_error). Default 3. */
  maxRetries?: number;
  /** How often `create` and `void` read a shipment while it is pending or voiding. Default 500 ms. */
  pollIntervalMs?: number;
  /** How long they follow it before giving up and returning it as it is. Default 120 s. */
  followTimeoutMs?: number;
  /** Another fetch (a proxy, a test); the global one by default. */
  fetch?: typeof fetch;
}

export interface IdempotentOptions {
  /** Sent as Idempotency-Key; one is made when omitted, and kept across retries. */
  idempotencyKey?: string;
}

export interface FollowOptions extends IdempotentOptions {
  /** Follow a 202 by reading the shipment until it is final (default true). */
  wait?: boolean;
}

interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  /** Which refusals are retried (default: 429, 409 idempotency_key_in_use and every 5xx but a carrier's definitive refusal). */
  retryOn?: (status: number, code: string | undefined) => boolean;
  /** Whether a network error is retried (default true): not where the API may have done it already and takes no key. */
  retryNetworkErrors?: boolean;
}

interface Answer<T> {
  status: number;
  body: T;
}

/**
 * The origin every path is put after (`/api/v1/…`): a base URL given with the API's base path, as
 * the spec's `{base_url}` is, would otherwise double it (`/api/v1/api/v1/quotes`, a 404).
 */
const originOf = (baseUrl: string) => baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '').replace(/\/+$/, '');
const enc = encodeURIComponent;

/**
 * The Parcel Shipping API, in Stripe's style:
 *
 *     const ps = new ParcelShipping({ apiKey: process.env.PS_KEY!, baseUrl: 'https://api.example.com' });
 *     const [cheapest] = await ps.quotes.create({ from, to, parcel });
 *     const shipment = await ps.shipments.create({ service: cheapest.service.code, from, to, parcel });
 */
export class ParcelShipping {
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #maxRetries: number;
  readonly #pollMs: number;
  readonly #followMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    if (!options?.apiKey) throw new TypeError('ParcelShipping: apiKey is required');
    if (!options.baseUrl) throw new TypeError('ParcelShipping: baseUrl is required');
    this.#apiKey = options.apiKey;
    this.#baseUrl = originOf(options.baseUrl);
    this.#maxRetries = options.maxRetries ?? 3;
    this.#pollMs = options.pollIntervalMs ?? 500;
    this.#followMs = options.followTimeoutMs ?? 120_000;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  readonly quotes = {
    /** Every eligible service priced, cheapest gross first (possibly none). */
    create: async (body: QuoteCreateParams): Promise<QuoteItem[]> =>
      (await this.#request<{ data: QuoteItem[] }>('POST', '/quotes', { body })).body.data,
  };

  readonly shipments = {
    /**
     * Buys a label. A 202 (purchase still under way) is followed until the shipment is purchased,
     * or its failure thrown as the purchase's error, unless `wait: false`.
     */
    create: async (body: ShipmentCreateParams, options: FollowOptions = {}): Promise<Shipment> => {
      const idempotencyKey = options.idempotencyKey ?? randomUUID();
      const answer = await this.#request<Shipment>('POST', '/shipments', { body, idempotencyKey });
      if (answer.status !== 202 || options.wait === false) return answer.body;
      // A key that may buy but not read (shipments:write without shipments:read) follows by sending
      // the purchase again with the same key, which joins it and answers as the first would now.
      return this.#follow(answer.body, ['pending'], async () => (await this.#request<Shipment>('POST', '/shipments', { body, idempotencyKey })).body);
    },
    retrieve: async (id: string): Promise<Shipment> => (await this.#request<Shipment>('GET', `/shipments/${enc(id)}`)).body,
    /** Every shipment that matches, newest first, page after page: `for await (const s of ps.shipments.list())`. */
    list: (params: ShipmentListParams = {}): AsyncIterable<Shipment> => this.#paginate<Shipment>('/shipments', params),
    /** One page, for those who keep the cursor themselves. */
    page: async (params: ShipmentListParams & { cursor?: string } = {}): Promise<Page<Shipment>> =>
      (await this.#request<Page<Shipment>>('GET', '/shipments', { query: params })).body,
    /**
     * Voids the label and reverses the charge. A 202 (still voiding) is followed unless `wait: false`:
     * the same request again, with the same Idempotency-Key, joins the void under way and answers its
     * outcome once it has one, so a void refused meanwhile is thrown as its error (a read of the
     * shipment would only show it `purchased` again).
     */
    void: async (id: string, options: FollowOptions = {}): Promise<Shipment> => {
      const path = `/shipments/${enc(id)}/void`;
      const idempotencyKey = options.idempotencyKey ?? randomUUID();
      let answer = await this.#request<Shipment>('POST', path, { idempotencyKey });
      if (options.wait === false) return answer.body;
      const deadline = Date.now() + this.#followMs;
      while (answer.status === 202 && Date.now() < deadline) {
        await sleep(this.#pollMs);
        // The void's own outcome (a carrier's refusal, say) is final: not retried as a new void.
        answer = await this.#request<Shipment>('POST', path, { idempotencyKey, retryOn: joinRetryable });
      }
      return answer.body;
    },
    /**
     * Buys the return label of a purchased, in-transit or delivered shipment: the same service unless
     * `params.service` names another, the addresses swapped. Followed like `create`.
     */
    createReturn: async (id: string, params: ReturnCreateParams = {}, options: FollowOptions = {}): Promise<Shipment> => {
      const path = `/shipments/${enc(id)}/return`;
      const idempotencyKey = options.idempotencyKey ?? randomUUID();
      const answer = await this.#request<Shipment>('POST', path, { body: params, idempotencyKey });
      if (answer.status !== 202 || options.wait === false) return answer.body;
      return this.#follow(answer.body, ['pending'], async () => (await this.#request<Shipment>('POST', path, { body: params, idempotencyKey })).body);
    },
    /** An international shipment's customs paperwork (a commercial invoice), as short-lived signed URLs. */
    documents: async (id: string): Promise<ShipmentDocument[]> =>
      (await this.#request<{ data: ShipmentDocument[] }>('GET', `/shipments/${enc(id)}/documents`)).body.data,
    /** A short-lived signed URL to the label file, usable without the key. */
    labelUrl: async (id: string, format: LabelFormat = 'pdf_6x4'): Promise<LabelLink> =>
      (await this.#request<LabelLink>('GET', `/shipments/${enc(id)}/label/${enc(format)}`)).body,
  };

  readonly tracking = {
    retrieve: async (trackingNumber: string): Promise<Tracking> =>
      (await this.#request<Tracking>('GET', `/tracking/${enc(trackingNumber)}`)).body,
  };


  readonly #transport: Transport = { request: (m, p, o) => this.#request(m, p, o), paginate: (p, q) => this.#paginate(p, q) };
  readonly addresses = addressResource(this.#transport);
  readonly batches = batchResource(this.#transport);
  readonly scanForms = scanFormResource(this.#transport);
  readonly pickups = pickupResource(this.#transport);

  readonly balance = {
    retrieve: async (): Promise<Balance> => (await this.#request<Balance>('GET', '/account/balance')).body,
  };

  readonly webhookEndpoints = {
    /**
     * Registers an endpoint; keep the returned `secret` (shown only now) for `verifyWebhook`. A retry
     * after a lost answer replays it under the same Idempotency-Key, secret included.
     */
    create: async (body: WebhookEndpointCreateParams, options: IdempotentOptions = {}): Promise<WebhookEndpointWithSecret> =>
      (await this.#request<WebhookEndpointWithSecret>('POST', '/webhook_endpoints', { body, idempotencyKey: options.idempotencyKey })).body,
    list: (params: PageParams = {}): AsyncIterable<WebhookEndpoint> => this.#paginate<WebhookEndpoint>('/webhook_endpoints', params),
    delete: async (id: string): Promise<DeletedWebhookEndpoint> =>
      (await this.#request<DeletedWebhookEndpoint>('DELETE', `/webhook_endpoints/${enc(id)}`)).body,
    deliveries: (id: string, params: PageParams = {}): AsyncIterable<WebhookDelivery> =>
      this.#paginate<WebhookDelivery>(`/webhook_endpoints/${enc(id)}/deliveries`, params),
  };

  readonly events = {
    retrieve: async (id: string): Promise<Event> => (await this.#request<Event>('GET', `/events/${enc(id)}`)).body,
    list: (params: EventListParams = {}): AsyncIterable<Event> => this.#paginate<Event>('/events', params),
  };

  readonly sandbox = {
    /** Records a carrier scan on a sandbox shipment (sandbox keys only). */
    scan: async (shipmentId: string, body: SandboxScanParams): Promise<SandboxScan> =>
      (
        await this.#request<SandboxScan>('POST', `/sandbox/shipments/${enc(shipmentId)}/scans`, {
          body,
          retryOn: refusedBeforeRetryable,
          retryNetworkErrors: false,
        })
      ).body,
  };

  /**
   * Reads the shipment until it leaves the `transient` states; a purchase that failed is thrown as its
   * error. Where the key may not read shipments (403 insufficient_scope), `rejoin` is asked instead.
   */
  async #follow(shipment: Shipment, transient: Shipment['status'][], rejoin: () => Promise<Shipment>): Promise<Shipment> {
    const deadline = Date.now() + this.#followMs;
    let current = shipment;
    let readable = true;
    while (transient.includes(current.status) && Date.now() < deadline) {
      await sleep(this.#pollMs);
      if (readable) {
        try {
          current = await this.shipments.retrieve(current.id);
          continue;
        } catch (err) {
          if (!(err instanceof ParcelShippingError && err.code === 'insufficient_scope')) throw err;
          readable = false;
        }
      }
      current = await rejoin();
    }
    if (current.status === 'failed' && current.failure) {
      throw new ParcelShippingError({
        code: current.failure.code as ErrorCode,
        detail: current.failure.message,
        shipment_id: current.id,
      });
    }
    return current;
  }

  async *#paginate<T>(path: string, params: Record<string, unknown>): AsyncGenerator<T> {
    let cursor: string | undefined;
    do {
      const query = { ...(params as Record<string, string | number | undefined>), cursor };
      const { body } = await this.#request<Page<T>>('GET', path, { query });
      yield* body.data;
      cursor = body.has_more && body.next_cursor ? body.next_cursor : undefined;
    } while (cursor);
  }

  /**
   * One call, retried safely: POSTs carry an Idempotency-Key (made here when none is given) that
   * stays the same across attempts, so a retry can never buy twice. Retries network errors,
   * 409 idempotency_key_in_use, 429 and 5xx, waiting Retry-After when given.
   */
  async #request<T>(method: string, path: string, o: RequestOptions = {}): Promise<Answer<T>> {
    const url = new URL(`${this.#baseUrl}/api/v1${path}`);
    for (const [name, value] of Object.entries(o.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = o.idempotencyKey ?? randomUUID();
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    assertSendable(headers);

    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.#fetch(url, { method, headers, body });
      } catch (cause) {
        if (attempt < this.#maxRetries && o.retryNetworkErrors !== false) {
          await sleep(backoffMs(attempt));
          continue;
        }
        throw new ParcelShippingConnectionError(`${method} ${url.pathname}: the API could not be reached`, { cause });
      }
      const text = await res.text();
      let parsed: unknown;
      let json = true;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        json = false;
      }
      if (res.ok && json) return { status: res.status, body: parsed as T };
      // Not JSON is not the API's answer (a load balancer's 502 page): a 5xx of it is retried too.
      const problem = (json ? (parsed ?? {}) : {}) as Partial<Problem>;
      const retryAfter = retryAfterSeconds(res.headers.get('retry-after'));
      const retryable = !res.ok && (o.retryOn ?? defaultRetryable)(res.status, problem.code);
      if (retryable && attempt < this.#maxRetries) {
        await sleep(retryAfter !== undefined ? retryAfter * 1000 : backoffMs(attempt));
        continue;
      }
      if (!json) throw new ParcelShippingConnectionError(`${method} ${url.pathname}: answered ${res.status} with a body that is not JSON`);
      throw new ParcelShippingError({ ...problem, code: (problem.code ?? 'internal_error') as ErrorCode }, res.status, retryAfter);
    }
  }
}
