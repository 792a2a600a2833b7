import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { claimIdempotencyKey, releaseIdempotencyKey, saveIdempotentResponse, type Db, type IdempotencyRow } from '../db/index.js';
import { CODE, ApiError } from '../domain/index.js';
import { timesSent } from './hardening.js';
import { IDEMPOTENCY_KEY_PATTERN } from './schemas.js';

/**
 * The key protocol (contract: Idempotency), one mechanism for every route that takes a key. A route
 * opts in with `config.idempotency`; before its handler the key is checked and claimed, a replay is
 * answered with the first answer, a different request with the same key is refused; a final answer
 * (200, 201) is saved for replays; a failed attempt frees the key so it may run anew.
 */
export interface IdempotencyRouteConfig {
  /**
   * A key still being processed gets one behaviour everywhere (contract rule 3): the request waits
   * for the first and answers as it did. A route whose work can be joined by the key (a purchase or a
   * void: the same Temporal update) joins it in its handler; any other route waits here for the
   * first answer to be stored (or the key freed, and then runs). Still in flight after
   * IN_FLIGHT_WAIT_MS: 409 `idempotency_key_in_use` with `Retry-After: 1`.
   */
  joinsInHandler?: boolean;
  /**
   * The route claims the key itself, inside its own transaction (`request.idempotency.settle` with
   * the claim's result): a purchase claims its key and inserts its pending row in one transaction.
   */
  claimsInHandler?: boolean;
  /** Whether a failure frees the key (the default: every failure does). */
  releaseOn?: (error: unknown) => boolean;
  /**
   * A secret the first answer shows once (a webhook endpoint's signing secret): never stored with
   * the answer, and put back from where it is kept (encrypted) when the answer is replayed, so a
   * client whose first answer was lost still receives it.
   */
  secretField?: { name: string; restore: (request: FastifyRequest, stored: Record<string, unknown>) => Promise<string | undefined> };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    idempotency?: IdempotencyRouteConfig;
  }
  interface FastifyRequest {
    /** The request's key, once checked; absent without an Idempotency-Key header. */
    idempotency?: IdempotentRequest;
  }
}

/**
 * The header as every route that takes a key declares it (`registerIdempotency` adds it): the schema
 * that validates it is the one the OpenAPI document shows.
 */
const KEY_HEADER = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        '1 to 255 printable ASCII characters, unique per operation (a UUID will do). The same key with the same request answers the first answer again (`Idempotency-Replayed: true`), never doing it twice; kept 24 hours.',
    }),
  ),
});

/**
 * The Idempotency-Key header, sent once. Its shape (1 to 255 printable ASCII characters) was checked
 * with the route's other input, by KEY_HEADER.
 */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  // Node joins repeated headers with ", ": two keys would silently become a third.
  if (timesSent(request, 'idempotency-key') > 1) throw new ApiError(CODE.bad_request, 'Send one Idempotency-Key header, not several.');
  return Array.isArray(raw) ? raw[0] : raw;
}

/**
 * JSON with keys sorted at every level, so key order never changes a fingerprint. Iterative, as the
 * control-character walk is (api/hardening.ts): a body nested thousands deep must not overflow the
 * stack and answer 500. A string found in `asSent` (trimmed since: api/hardening.ts) is written as sent.
 */
function canonical(value: unknown, asSent?: WeakMap<object, Map<string, string>>): string {
  const out: string[] = [];
  // What is left to write, last first: literal text, or a value to write in canonical form.
  const todo: Array<{ text: string } | { value: unknown }> = [{ value }];
  while (todo.length) {
    const next = todo.pop()!;
    if ('text' in next) {
      out.push(next.text);
      continue;
    }
    const v = next.value;
    if (!v || typeof v !== 'object') {
      out.push(JSON.stringify(v ?? null));
      continue;
    }
    const parts: Array<{ text: string } | { value: unknown }> = [];
    const sent = asSent?.get(v);
    if (Array.isArray(v)) {
      v.forEach((item, i) => parts.push(...(i ? [{ text: ',' }] : []), { value: sent?.get(String(i)) ?? item }));
      parts.unshift({ text: '[' });
      parts.push({ text: ']' });
    } else {
      Object.keys(v)
        .sort()
        .forEach((k, i) => parts.push({ text: `${i ? ',' : ''}${JSON.stringify(k)}:` }, { value: sent?.get(k) ?? (v as Record<string, unknown>)[k] }));
      parts.unshift({ text: '{' });
      parts.push({ text: '}' });
    }
    for (let i = parts.length - 1; i >= 0; i--) todo.push(parts[i]);
  }
  return out.join('');
}

/**
 * Method, path and the body as parsed JSON (contract: Idempotency): its strings as sent, before
 * trimming, so a body that differs only in spaces is a different request, not a replay.
 */
export function fingerprintOf(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return createHash('sha256').update(`${request.method} ${path} ${canonical(request.body, request.untrimmed)}`).digest('hex');
}

export const keyReused = () =>
  new ApiError(CODE.idempotency_key_reused, 'This Idempotency-Key was used with a different request.');
export const keyInUse = () =>
  new ApiError(CODE.idempotency_key_in_use, 'A request with this Idempotency-Key is still being processed.', {
    headers: { 'retry-after': '1' },
  });

/** What a claim found: go on (as the owner, or joining the first), or answer the first answer again. */
export type Settled = { replay: { status: number; body: unknown } } | { replay: null };

/** One request's key: its scope and fingerprint, and whether this request holds the claim. */
export class IdempotentRequest {
  /** This request claimed the key: only it may free it. */
  owner = false;
  /** The answer is a replay (of a stored answer, or of the first request it joined). */
  replayed = false;
  /** The answer is the stored one: nothing to save. */
  stored = false;
  /** When the claim this request owns or joined was made: a key freed and claimed again is a new claim. */
  claimedAt: Date | undefined;

  constructor(
    readonly scope: { accountId: string; livemode: boolean; key: string },
    readonly fingerprint: string,
    private readonly route: IdempotencyRouteConfig,
  ) {}

  get key(): string {
    return this.scope.key;
  }

  /**
   * This claim of the key, for work that outlives the request and is joined by the key (a void's
   * Temporal update id): stable across the retries that join the claim, new once a failure has freed
   * the key and it runs anew (rule 4), where the same id would be answered with the old outcome.
   */
  get claimId(): string {
    return `${this.key}@${this.claimedAt?.getTime() ?? 0}`;
  }

  /** Decides on a claim's result (rules 1 to 3): claimed, joined, replayed or refused. */
  settle(claim: { claimed: true; row?: IdempotencyRow } | { claimed: false; row: IdempotencyRow }): Settled {
    this.claimedAt = claim.row?.createdAt;
    if (claim.claimed) {
      this.owner = true;
      return { replay: null };
    }
    if (claim.row.fingerprint !== this.fingerprint) throw keyReused();
    this.replayed = true;
    if (!claim.row.responseStatus) return { replay: null };
    this.stored = true;
    return { replay: { status: claim.row.responseStatus, body: claim.row.responseBody } };
  }
}

/** How long a request whose key is still in flight waits for the first answer (routes that do not join). */
export const IN_FLIGHT_WAIT_MS = 10_000;
const IN_FLIGHT_POLL_MS = 50;

/**
 * Claims the key, waiting while another request holds it unanswered: its stored answer, or the key
 * freed (the first failed) and claimed by this request; 409 when the first is still running at the end.
 */
async function claimOrAwait(db: Db, idem: IdempotentRequest, now: () => Date): Promise<Parameters<IdempotentRequest['settle']>[0]> {
  const until = Date.now() + IN_FLIGHT_WAIT_MS;
  for (;;) {
    const claim = await claimIdempotencyKey(db, { ...idem.scope, fingerprint: idem.fingerprint, now: now() });
    if (claim.claimed || claim.row.responseStatus || claim.row.fingerprint !== idem.fingerprint) return claim;
    if (Date.now() >= until) throw keyInUse();
    await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_POLL_MS));
  }
}

/** A final answer is kept for replays; a 202 is not (its replay answers as the first would now). */
const FINAL = new Set([200, 201]);

/** The answer as stored: the field that must not be kept is null, in its place (a replay keeps the key order). */
function withoutField(payload: string, name: string): string {
  const body = JSON.parse(payload) as Record<string, unknown>;
  if (name in body) body[name] = null;
  return JSON.stringify(body);
}

/** A stored answer with its secret put back (null when it cannot be read: no such endpoint of the caller any more). */
async function withSecret(request: FastifyRequest, route: IdempotencyRouteConfig, body: unknown): Promise<unknown> {
  const field = route.secretField;
  if (!field || !body || typeof body !== 'object') return body;
  const secret = await field.restore(request, body as Record<string, unknown>);
  return secret === undefined ? body : { ...body, [field.name]: secret };
}

/** Installs the key protocol on every route whose config has `idempotency`. */
export function registerIdempotency(app: FastifyInstance, deps: { db: Db; now: () => Date }): void {
  // Routes registered after this (all of them) declare the header when they take a key.
  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotency) return;
    route.schema = { ...route.schema, headers: KEY_HEADER };
  });
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.config?.idempotency;
    if (!route || !request.caller) return;
    const key = idempotencyKeyOf(request);
    if (!key) return;
    const idem = new IdempotentRequest({ ...request.caller.owner, key }, fingerprintOf(request), route);
    request.idempotency = idem;
    if (route.claimsInHandler) return;
    const claim = route.joinsInHandler
      ? await claimIdempotencyKey(deps.db, { ...idem.scope, fingerprint: idem.fingerprint, now: deps.now() })
      : await claimOrAwait(deps.db, idem, deps.now);
    const { replay } = idem.settle(claim);
    if (replay) return reply.code(replay.status).send(await withSecret(request, route, replay.body));
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const idem = request.idempotency;
    if (!idem) return payload;
    if (idem.replayed) reply.header('idempotency-replayed', 'true');
    if (!idem.stored && FINAL.has(reply.statusCode) && typeof payload === 'string') {
      const secret = request.routeOptions.config?.idempotency?.secretField?.name;
      await saveIdempotentResponse(deps.db, idem.scope, reply.statusCode, secret ? withoutField(payload, secret) : payload);
    }
    return payload;
  });

  app.addHook('onError', async (request, _reply, error) => {
    const idem = request.idempotency;
    const route = request.routeOptions.config?.idempotency;
    if (!idem || !route) return;
    if (route.releaseOn && !route.releaseOn(error)) return;
    // The owner frees its claim. So does a retry that joined a claim whose first request has ended
    // (a void answered 202 that then failed) and answers that failure in the contract's codes: that
    // claim has no owner left, and rule 4 frees it (a fault of this retry's own, such as Temporal out
    // of reach, says nothing of the work it joined). Only the claim the request holds or joined is
    // freed, never a later claim of the same key.
    const joinedFailed = route.joinsInHandler && idem.replayed && !idem.stored && error instanceof ApiError;
    if (!idem.owner && !joinedFailed) return;
    await releaseIdempotencyKey(deps.db, idem.scope, idem.fingerprint, idem.claimedAt);
  });
}
