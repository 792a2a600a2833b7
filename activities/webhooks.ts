import type { WorkerMetrics } from './metrics.js';
import { randomBytes } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Context } from '@temporalio/activity';
import { Agent, request } from 'undici';
import { decryptWebhookSecret, findOwnEvent, findWebhookEndpoint, recordWebhookAttempt, type Db, type WebhookEndpointRow } from '../db/index.js';
import { checkWebhookUrl, CODE, eventPayload, isPublicAddress, makeId, WEBHOOK_HEADERS, WEBHOOK_TIMEOUT_MS } from '../domain/index.js';
import type { Config } from '../config/index.js';
import { nonRetryableFailure, typedFailure } from '../contract/index.js';
import { signWebhook } from '../domain/webhook-signature.js';

/** Resolves a host name to every address it has (node's `dns.promises.lookup` with `all: true`). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface DeliveryRequest {
  eventId: string;
  endpointId: string;
  /** 1 to 6: sent as X-SVC-Delivery-Attempt. */
  attempt: number;
  /** The body, exactly as the first activity built it: the same bytes at every attempt. */
  body: string;
  /** The last attempt: a failure here gives up. */
  final: boolean;
}

export type DeliveryOutcome =
  | { outcome: 'succeeded'; statusCode: number; latencyMs: number }
  | { outcome: 'failed'; statusCode: number | null; error: string; latencyMs: number | null }
  /** The endpoint was deleted: nothing was sent and nothing more will be. */
  | { outcome: 'endpoint_deleted' };

type AttemptResult = { statusCode?: number; error?: string; latencyMs: number | null };

const NOT_PUBLIC = 'EWEBHOOKNOTPUBLIC';

/**
 * A `lookup` for the socket itself, so the address checked is the address connected to: a DNS
 * answer that changes between a check and the connection cannot point a delivery inside.
 */
function guardedLookup(resolve: ResolveHost, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    resolve(hostname).then(
      (all) => {
        const usable = wanted ? all.filter((a) => a.family === wanted) : all;
        if (!usable.length) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '');
        if (!allowPrivate && all.some((a) => !isPublicAddress(a.address))) {
          return callback(Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: NOT_PUBLIC }), '');
        }
        if (options.all) return callback(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** The activity's cancellation (worker shutdown), when running as an activity. */
function cancellation(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/** A short, customer-safe reason for a failed request (shown in the delivery log). */
function describeFailure(err: unknown, timedOut: boolean): string {
  if (timedOut) return `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`;
  for (let e: any = err; e; e = e.cause) {
    if (e.code === NOT_PUBLIC) return 'the URL resolves to a non-public address';
    if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'the host name does not resolve';
    if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return `connection failed (${e.code})`;
  }
  return `request failed: ${String((err as Error)?.message ?? err).slice(0, 200)}`;
}

/**
 * Webhook HTTP: one activity builds the delivery body once, the other makes one attempt (sign with
 * the attempt's own time, POST, record the attempt) and reports its outcome. Receiver failures are
 * outcomes, never thrown, so the workflow alone decides when the next attempt happens.
 */
export function createWebhookActivities(deps: {
  db: Db;
  config: Config;
  now?: () => Date;
  lookup?: ResolveHost;
  metrics?: WorkerMetrics;
}) {
  const { db, config } = deps;
  const now = deps.now ?? (() => new Date());
  /** Attempts in flight in this process, by account and mode (fairness between accounts). */
  const inFlight = new Map<string, number>();
  const resolve: ResolveHost = deps.lookup ?? ((host) => dnsLookup(host, { all: true, verbatim: true }));
  const agent = new Agent({
    connect: { lookup: guardedLookup(resolve, config.webhookAllowPrivate), timeout: WEBHOOK_TIMEOUT_MS },
    headersTimeout: WEBHOOK_TIMEOUT_MS,
    bodyTimeout: WEBHOOK_TIMEOUT_MS,
  });

  async function post(url: URL, bytes: Buffer, headers: Record<string, string>): Promise<AttemptResult> {
    const timeout = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS);
    const cancel = cancellation();
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body: bytes,
        dispatcher: agent,
        signal: cancel ? AbortSignal.any([timeout, cancel]) : timeout,
      });
      const latencyMs = latency();
      // The status decides; the receiver's body is drained in the background and never stored.
      res.body.dump().catch(() => undefined);
      return { statusCode: res.statusCode, latencyMs };
    } catch (err) {
      // The worker is shutting down: fail this activity attempt so Temporal runs it again elsewhere.
      if (cancel?.aborted) throw cancel.reason ?? err;
      return { error: describeFailure(err, timeout.aborted), latencyMs: latency() };
    }
  }

  /** The URL is checked again at every attempt (configuration or DNS may have changed since). */
  async function attempt(endpoint: WebhookEndpointRow, p: DeliveryRequest): Promise<AttemptResult> {
    const target = checkWebhookUrl(endpoint.url, { allowPrivate: config.webhookAllowPrivate });
    if (!target.ok) return { error: `the URL ${target.message}`, latencyMs: null };
    let secret: string;
    try {
      secret = decryptWebhookSecret(endpoint.secretCiphertext, config.webhookSecretKey, endpoint.id);
    } catch {
      return { error: 'internal error: the delivery could not be signed', latencyMs: null };
    }
    const bytes = Buffer.from(p.body, 'utf8');
    const t = Math.floor(now().getTime() / 1000);
    return post(target.url, bytes, {
      'content-type': 'application/json',
      'user-agent': 'parcel-shipping-webhooks/1',
      [WEBHOOK_HEADERS.signature]: signWebhook(bytes, secret, t),
      [WEBHOOK_HEADERS.eventId]: p.eventId,
      [WEBHOOK_HEADERS.attempt]: String(p.attempt),
    });
  }

  /** One attempt: sign afresh, POST, record the attempt, report the outcome. */
  async function attemptAndRecord(endpoint: WebhookEndpointRow, p: DeliveryRequest): Promise<DeliveryOutcome> {
    const attemptedAt = now();
    const result = await attempt(endpoint, p);
    const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
    const error = ok ? null : (result.error ?? `HTTP ${result.statusCode}`);
    await recordWebhookAttempt(db, {
      id: makeId('whd', attemptedAt.getTime(), randomBytes(16)),
      eventId: p.eventId,
      endpointId: p.endpointId,
      attempt: p.attempt,
      outcome: ok ? 'succeeded' : 'failed',
      statusCode: result.statusCode ?? null,
      error,
      latencyMs: result.latencyMs,
      final: !ok && p.final,
      attemptedAt,
    });
    deps.metrics?.webhookAttempts.inc({ outcome: ok ? 'succeeded' : 'failed' });
    if (ok) return { outcome: 'succeeded', statusCode: result.statusCode!, latencyMs: result.latencyMs! };
    return { outcome: 'failed', statusCode: result.statusCode ?? null, error: error!, latencyMs: result.latencyMs };
  }

  return {
    /** The delivery body, built once per delivery and carried in the workflow's history. */
    async loadWebhookEvent(p: { eventId: string; accountId: string; livemode: boolean }): Promise<string> {
      const row = await findOwnEvent(db, p, p.eventId);
      if (!row) throw nonRetryableFailure(CODE.webhook_event_missing, `Event ${p.eventId} does not exist.`);
      return JSON.stringify(eventPayload(row));
    },

    /** One attempt: sign afresh, POST with a 10 s limit, record the attempt, report the outcome. */
    async deliverWebhook(p: DeliveryRequest): Promise<DeliveryOutcome> {
      const endpoint = await findWebhookEndpoint(db, p.endpointId);
      if (!endpoint || endpoint.deletedAt) return { outcome: 'endpoint_deleted' };
      // Fair between accounts: an account already using its share of this worker's slots (slow or
      // failing endpoints hold one for up to 10 s) gives the slot back at once and is retried shortly
      // (the activity's own retry, not a delivery attempt), so other accounts' deliveries go first.
      const owner = `${endpoint.accountId}:${endpoint.livemode}`;
      const busy = inFlight.get(owner) ?? 0;
      if (busy >= config.webhookAccountConcurrency) {
        throw typedFailure(CODE.webhook_account_busy, {
          message: `account ${endpoint.accountId} already has ${busy} webhook attempts in flight here; retrying shortly`,
          nextRetryDelay: 1000 + Math.floor(Math.random() * 2000),
        });
      }
      inFlight.set(owner, busy + 1);
      try {
        return await attemptAndRecord(endpoint, p);
      } finally {
        const left = (inFlight.get(owner) ?? 1) - 1;
        if (left > 0) inFlight.set(owner, left);
        else inFlight.delete(owner);
      }
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
