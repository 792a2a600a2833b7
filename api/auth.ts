import type { FastifyReply, FastifyRequest } from 'fastify';
import { findKeyByHash, hashApiKey, touchApiKey, type AccountRow, type ApiKeyRow, type Db } from '../db/index.js';
import { CODE, ApiError, ipAllowed, type Scope } from '../domain/index.js';
import type { AddressLimiter } from './address-limit.js';
import { timesSent } from './hardening.js';

export interface Caller {
  key: ApiKeyRow;
  account: AccountRow;
  livemode: boolean;
  /** The owner every query filters on: sandbox and live data never mix. */
  owner: { accountId: string; livemode: boolean };
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /** The scope a route needs; routes without one are public. */
    scope?: Scope;
    /**
     * A credential of the route's own, on a route without a scope (a carrier's push secret): a
     * request that holds it is authenticated, so the client address's allowance does not limit it
     * (as a valid key's request); one without it is a refusal and counts against the address.
     */
    credential?: (request: FastifyRequest) => boolean;
  }
}

/** `Bearer <key>`; the scheme's case does not matter (RFC 9110 §11.1), the key's does. */
const KEY_SHAPE = /^[Bb][Ee][Aa][Rr][Ee][Rr] +(svc_(test|live)_[A-Za-z0-9]{20,100})$/;

/** One 401 for every refusal, so a caller learns nothing about why (spec §5.3). */
const unauthorized = () =>
  new ApiError(CODE.unauthorized, 'A valid API key is required as Authorization: Bearer <key>.', {
    headers: { 'www-authenticate': 'Bearer' },
  });

const KEY_PARAMETER = /^(api[-_]?key|key|access[-_]?token|token|authorization|bearer)$/i;

/**
 * Whether the raw query string carries a key: read from the URL itself, every occurrence of every
 * parameter (a repeated `?key=a&key=b`, `key[]=`, `api_key[0]=`), names and values percent-decoded.
 */
function looksLikeKeyInQuery(url: string): boolean {
  const at = url.indexOf('?');
  if (at < 0) return false;
  const query = url.slice(at + 1);
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  if (/svc_(test|live)_/i.test(decode(decode(query)))) return true;
  return query.split(/[&;]/).some((pair) => {
    const name = decode(pair.split('=')[0]).trim().replace(/\[[^\]]*\]/g, '');
    return KEY_PARAMETER.test(name);
  });
}

/** The portal's and the admin console's pages, where a session cookie signs a user in. */
const isWebPage = (request: FastifyRequest) => /^\/(portal|admin)(\/|$)/.test(request.routeOptions.url ?? '');

export function createAuthenticator(deps: {
  db: Db;
  now: () => Date;
  /** Counts unauthenticated and refused requests per client address (api/address-limit.ts). */
  addressLimiter?: AddressLimiter;
  /** The user of the request's portal session, if it has a valid one (api/web/session.ts). */
  signedInUser?: (request: FastifyRequest) => Promise<string | undefined>;
  /** Runs once the key is known, before the scope check (the rate limit: every authenticated request counts). */
  onAuthenticated?: (request: FastifyRequest, reply: FastifyReply, caller: Caller) => Promise<void>;
}) {
  const limiter = deps.addressLimiter;
  /**
   * A refusal counts against the client address (and turns into a 429 once it is over its
   * allowance); an address already over it gets the 429 at once. Only refusals: a request with a
   * valid key is limited by its key's allowance alone (contract: 429), even from an address that
   * has spent its own (a NAT shared with a noisy neighbour).
   */
  const refuse = async (request: FastifyRequest, error: ApiError): Promise<never> => {
    await limiter?.count(request);
    throw error;
  };
  const lastTouched = new Map<string, number>();
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const scope = request.routeOptions.config?.scope;
    if (!scope) {
      // No key asked: the address's allowance is the only limit. The liveness probe touches nothing.
      if (request.routeOptions.url === '/healthz') return;
      const credential = request.routeOptions.config?.credential;
      if (credential) {
        // The route answers a refusal itself (its own 401); here it only counts.
        if (!credential(request)) await limiter?.count(request);
        return;
      }
      // A signed-in portal or admin user spends their own allowance, as a key does.
      const userId = limiter && deps.signedInUser && isWebPage(request) ? await deps.signedInUser(request) : undefined;
      if (userId) await limiter?.countUser(request, userId);
      else await limiter?.count(request);
      return;
    }
    // A key in the query string is refused, even alongside a good header (spec §5.1), and so are two
    // Authorization headers (Node keeps the first: the key used would depend on their order), but
    // only after the same lookup as every other refusal: answered before it, they could be told apart by
    // their timing.
    const keyInQuery = looksLikeKeyInQuery(request.url);
    const match = KEY_SHAPE.exec(request.headers.authorization ?? '');
    const found = await findKeyByHash(deps.db, hashApiKey(match?.[1] ?? 'no key'));
    if (keyInQuery || !match || !found || timesSent(request, 'authorization') > 1) return refuse(request, unauthorized());
    const { key, account } = found;
    const now = deps.now();
    const livemode = match[2] === 'live';
    if (key.revokedAt || (key.expiresAt && key.expiresAt <= now) || !account.apiEnabled || key.livemode !== livemode) {
      return refuse(request, unauthorized());
    }
    const caller: Caller = { key, account, livemode, owner: { accountId: account.id, livemode } };
    if (key.allowedIps?.length && !ipAllowed(request.ip, key.allowedIps)) {
      // A refused address spends the key's own allowance too, so a stolen key used from outside its
      // allowlist cannot be tried without limit.
      await deps.onAuthenticated?.(request, reply, caller);
      return refuse(request, new ApiError(CODE.ip_not_allowed, 'This key may only be used from its allowed addresses.'));
    }
    request.caller = caller;
    // "Last used" in the portal, to the minute: off the request's path, at most one write a minute
    // per key and process, and a failure costs only that display.
    if ((lastTouched.get(key.id) ?? 0) <= now.getTime() - 60_000) {
      lastTouched.set(key.id, now.getTime());
      touchApiKey(deps.db, key.id, now).catch((err: unknown) => request.log.warn({ err }, 'could not note the key as used'));
    }
    // Both loggers: the request-completed line is written through the reply's.
    request.log = reply.log = request.log.child({ key_id: key.id, account_id: account.id });
    await deps.onAuthenticated?.(request, reply, request.caller);
    if (!key.scopes.includes(scope)) {
      throw new ApiError(CODE.insufficient_scope, `This key lacks the scope ${scope}.`);
    }
  };
}

/** The authenticated caller; routes with a scope always have one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new ApiError(CODE.unauthorized, 'A valid API key is required.');
  return request.caller;
}
