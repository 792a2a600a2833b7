import type { FastifyReply, FastifyRequest } from 'fastify';
import { takeRateLimitToken, type ApiKeyRow, type Db, type RateDecision, type RatePolicy } from '../db/index.js';
import { CODE, ApiError } from '../domain/index.js';

const US = 1_000_000;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Whole seconds until the allowance is whole again. */
  reset: number;
  /** Whole seconds to wait before the next request is admitted; set when refused. */
  retryAfter?: number;
}

/** The numbers the headers carry, from one sliding-window decision (see db/queries/rate-limits.ts). */
export function rateLimitState(policy: RatePolicy, d: RateDecision): RateLimitState {
  const state: RateLimitState = {
    limit: policy.count,
    remaining: d.allowed ? Math.max(0, policy.count - d.used) : 0,
    reset: Math.ceil(d.untilWholeUs / US),
  };
  // A place frees up when the oldest admitted request leaves the window: ceil, and never 0, so
  // waiting it is enough.
  if (!d.allowed) state.retryAfter = Math.max(1, Math.ceil(d.untilSlotUs / US));
  return state;
}

/**
 * Headers of the contract (RateLimit-Limit/-Remaining/-Reset) and of the current IETF draft
 * (draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy and RateLimit), with the same numbers.
 */
export function setRateLimitHeaders(reply: FastifyReply, policy: RatePolicy, s: RateLimitState): void {
  reply.header('ratelimit-limit', String(s.limit));
  reply.header('ratelimit-remaining', String(s.remaining));
  reply.header('ratelimit-reset', String(s.reset));
  reply.header('ratelimit-policy', `"default";q=${policy.count};w=${policy.seconds}`);
  reply.header('ratelimit', `"default";r=${s.remaining};t=${s.reset}`);
  if (s.retryAfter !== undefined) reply.header('retry-after', String(s.retryAfter));
}

/**
 * Per-key rate limit (spec §5.8 and §8), run once the key is known and before anything else is
 * done for the request: every authenticated request counts, whatever its answer, and every
 * authenticated answer carries the headers. Keys of one account have separate allowances.
 */
export function createRateLimiter(deps: { db: Db }) {
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply, caller: { key: ApiKeyRow }): Promise<void> {
    const policy: RatePolicy = { count: caller.key.rateLimitCount, seconds: caller.key.rateLimitSeconds };
    const decision = await takeRateLimitToken(deps.db, caller.key.id, policy);
    const state = rateLimitState(policy, decision);
    setRateLimitHeaders(reply, policy, state);
    if (!decision.allowed) {
      request.log.info({ retry_after: state.retryAfter }, 'rate limited');
      throw new ApiError(CODE.rate_limited, `This key's allowance of ${policy.count} requests per ${policy.seconds} s is spent; retry after ${state.retryAfter} s.`, {
        headers: { 'retry-after': String(state.retryAfter) },
      });
    }
  };
}
