import type { FastifyReply, FastifyRequest } from 'fastify';
import { takeRateLimitToken, type Db, type RatePolicy } from '../db/index.js';
import { CODE, ApiError } from '../domain/index.js';
import { rateLimitState } from './rate-limit.js';

/** Local memory of addresses over their allowance: at most this many, the oldest forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * The per-address limit on traffic without a valid key (contract: 429 `rate_limited`): every request
 * to a route without a key (`/readyz`, `/label-files`, `/carrier-webhooks`, the OpenAPI document,
 * unknown paths) and every refused one (401, `ip_not_allowed`) takes one request from the client
 * address's allowance, kept in PostgreSQL beside the keys' (one sliding-window row per address, `ip:<addr>`),
 * so it holds across every API instance. Once an instance has seen an address refused, it answers
 * 429 to that address from memory, without a database query, until the window has passed.
 * `/healthz` (the orchestrator's liveness probe, which touches nothing) does not count.
 */
export function createAddressLimiter(deps: { db: Db; policy: RatePolicy; now?: () => number }) {
  const now = deps.now ?? Date.now;
  const blockedUntil = new Map<string, number>();

  const refusal = (retryAfter: number) =>
    new ApiError(
      CODE.rate_limited,
      `Too many unauthenticated or refused requests from this address (${deps.policy.count} per ${deps.policy.seconds} s); retry after ${retryAfter} s.`,
      { headers: { 'retry-after': String(retryAfter) } },
    );

  // The client's address (api/app.ts: trustProxy follows X-Forwarded-For through trusted proxies only).
  const addressOf = (request: FastifyRequest) => request.ip || 'unknown';

  return {
    /**
     * Counts one request against the address; over the allowance, the answer becomes a 429. An
     * address this instance knows to be over it is refused at once, from memory.
     */
    async count(request: FastifyRequest, _reply?: FastifyReply): Promise<void> {
      const ip = addressOf(request);
      const until = blockedUntil.get(ip);
      if (until !== undefined) {
        const left = until - now();
        if (left > 0) throw refusal(Math.max(1, Math.ceil(left / 1000)));
        blockedUntil.delete(ip);
      }
      const decision = await takeRateLimitToken(deps.db, `ip:${ip}`, deps.policy);
      if (decision.allowed) return;
      const { retryAfter } = rateLimitState(deps.policy, decision);
      if (blockedUntil.size >= MAX_REMEMBERED) blockedUntil.delete(blockedUntil.keys().next().value!);
      blockedUntil.set(ip, now() + retryAfter! * 1000);
      request.log.info({ retry_after: retryAfter }, 'address rate limited');
      throw refusal(retryAfter!);
    },
  };
}

export type AddressLimiter = ReturnType<typeof createAddressLimiter>;
