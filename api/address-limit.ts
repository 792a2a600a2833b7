import type { FastifyReply, FastifyRequest } from 'fastify';
import { takeRateLimitToken, type Db, type RatePolicy } from '../db/index.js';
import { CODE, ApiError } from '../domain/index.js';
import { rateLimitState } from './rate-limit.js';

/** Local memory of addresses over their allowance: at most this many, the oldest forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * The per-address limit on traffic without a valid key (contract: 429 `rate_limited`): every request
 * to a route without a key (`/readyz`, `/label-files`, the OpenAPI document, the portal's sign-in,
 * unknown paths, a carrier push without its carrier's secret) and every refused one (401,
 * `ip_not_allowed`) takes one
 * request from the client address's allowance, kept in PostgreSQL beside the keys' (one
 * sliding-window row per address, `ip:<addr>`), so it holds across every API instance. Once an
 * instance has seen an address refused, it answers 429 to that address from memory, without a
 * database query, until the window has passed. `/healthz` (the orchestrator's liveness probe, which
 * touches nothing) does not count. A signed-in portal or admin user is authenticated as a key is,
 * so their pages take from their own allowance (`user:<id>`, the same policy) instead of the
 * address's, which they may share with a noisy neighbour behind one NAT.
 */
export function createAddressLimiter(deps: { db: Db; policy: RatePolicy; now?: () => number }) {
  const now = deps.now ?? Date.now;
  const blockedUntil = new Map<string, number>();

  const refusal = (whose: string, retryAfter: number) =>
    new ApiError(
      CODE.rate_limited,
      `Too many ${whose} (${deps.policy.count} per ${deps.policy.seconds} s); retry after ${retryAfter} s.`,
      { headers: { 'retry-after': String(retryAfter) } },
    );

  // The client's address (api/app.ts: trustProxy follows X-Forwarded-For through trusted proxies only).
  const addressOf = (request: FastifyRequest) => request.ip || 'unknown';

  /** Takes one request from `bucket`'s allowance; over it, a 429 (from memory while it lasts). */
  async function take(request: FastifyRequest, bucket: string, whose: string): Promise<void> {
    const until = blockedUntil.get(bucket);
    if (until !== undefined) {
      const left = until - now();
      if (left > 0) throw refusal(whose, Math.max(1, Math.ceil(left / 1000)));
      blockedUntil.delete(bucket);
    }
    const decision = await takeRateLimitToken(deps.db, bucket, deps.policy);
    if (decision.allowed) return;
    const { retryAfter } = rateLimitState(deps.policy, decision);
    if (blockedUntil.size >= MAX_REMEMBERED) blockedUntil.delete(blockedUntil.keys().next().value!);
    blockedUntil.set(bucket, now() + retryAfter! * 1000);
    request.log.info({ retry_after: retryAfter }, bucket.startsWith('ip:') ? 'address rate limited' : 'portal user rate limited');
    throw refusal(whose, retryAfter!);
  }

  return {
    /**
     * Counts one request against the address; over the allowance, the answer becomes a 429. An
     * address this instance knows to be over it is refused at once, from memory.
     */
    count(request: FastifyRequest, _reply?: FastifyReply): Promise<void> {
      return take(request, `ip:${addressOf(request)}`, 'unauthenticated or refused requests from this address');
    },
    /** Counts one request of a signed-in portal or admin user against that user's own allowance. */
    countUser(request: FastifyRequest, userId: string): Promise<void> {
      return take(request, `user:${userId}`, 'requests from this user');
    },
  };
}

export type AddressLimiter = ReturnType<typeof createAddressLimiter>;
