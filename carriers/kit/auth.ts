import { isRecord } from '../decode.js';
import { CarrierError } from '../carrier-error.js';
import type { CarrierAnswer, CarrierAuth, CarrierRequest, OAuthClientCredentials } from './types.js';

/** A token and how long it lives, from an endpoint's answer. */
export interface IssuedToken {
  value: string;
  lifeMs: number;
}

/**
 * One token per process, shared by concurrent callers: renewed only when it is about to expire,
 * one request for every caller waiting; a token the carrier turned down is dropped by the caller
 * that sent it, and only that one (calls that met the same 401 join one renewal, and a call whose
 * 401 arrives after another renewed it sends the new one, renewing nothing).
 */
export function createTokenCache(o: { fetch: () => Promise<IssuedToken>; now: () => number; renewBeforeMs: (lifeMs: number) => number }) {
  let cached: { value: string; until: number } | undefined;
  let inFlight: Promise<string> | undefined;
  return {
    get(): Promise<string> {
      if (cached && o.now() < cached.until) return Promise.resolve(cached.value);
      inFlight ??= o
        .fetch()
        .then((token) => {
          cached = { value: token.value, until: o.now() + Math.max(token.lifeMs - o.renewBeforeMs(token.lifeMs), 0) };
          return token.value;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    /** Drops the token if it is still the one `sent`. */
    drop(sent: string): void {
      if (cached?.value === sent) cached = undefined;
    },
    /** The token in use, for redaction; undefined before the first. */
    current: () => cached?.value,
  };
}

export type TokenCache = ReturnType<typeof createTokenCache>;

/** RFC 6749 §5.1: `access_token` and `expires_in` (seconds; a number, or a string of digits as some carriers send it). */
export function readOAuthToken(body: unknown): { accessToken: string; expiresInSeconds: number } | undefined {
  if (!isRecord(body) || typeof body.access_token !== 'string' || body.access_token === '') return undefined;
  const raw = body.expires_in;
  const seconds = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return { accessToken: body.access_token, expiresInSeconds: seconds };
}

/** A tenth of its life, at most a minute: no token expires on its way to the carrier. */
const defaultRenewBefore = (lifeMs: number) => Math.min(60_000, lifeMs / 10);

/** The token request of client credentials, as the carrier takes them. */
export function tokenRequest(auth: OAuthClientCredentials): CarrierRequest {
  const base = { operation: 'lookup' as const, name: 'token', method: 'POST' as const, path: auth.tokenPath, authenticated: false };
  const grant = { grant_type: 'client_credentials' };
  const all = { ...grant, client_id: auth.clientId, client_secret: auth.clientSecret };
  switch (auth.credentialsIn) {
    case 'basic':
      return { ...base, form: grant, headers: { authorization: `Basic ${Buffer.from(`${auth.clientId}:${auth.clientSecret}`).toString('base64')}` } };
    case 'form':
      return { ...base, form: all };
    case 'json':
      return { ...base, body: all };
  }
}

/**
 * A token answer as a token, or the failure it is. Asking for a token buys nothing, so every fault
 * may pass later (retryable); refused credentials are a setting to fix, not a moment to wait out
 * (definitive, and never their value in the message: only the carrier's words).
 */
export function tokenFrom(auth: OAuthClientCredentials, answer: CarrierAnswer, failure: () => CarrierError, o: { name: string; carrierCode: string }): IssuedToken {
  if (answer.status === 200) {
    const token = (auth.readToken ?? readOAuthToken)(answer.body);
    if (token) return { value: token.accessToken, lifeMs: token.expiresInSeconds * 1000 };
    throw new CarrierError('retryable', `${o.name} token: an answer without a usable token`, { status: answer.status, carrierCode: o.carrierCode });
  }
  const error = failure();
  if (answer.status === 429 || answer.status >= 500 || answer.status === 409) return rethrow(new CarrierError('retryable', error.message, error.details));
  return rethrow(new CarrierError('definitive', `${o.name} refused the client credentials (${error.message})`, error.details));
}

const rethrow = (error: CarrierError): never => {
  throw error;
};

/** The credentials every authenticated request carries, and what renews them. */
export interface AuthHeaders {
  /** The headers of one request, and the token they carry (to drop it if the carrier turns it down). */
  headers(): Promise<{ headers: Record<string, string>; token?: string }>;
  /** After a 401: drops `token` so the next request gets a new one; false when there is nothing to renew. */
  renew(token: string | undefined): boolean;
  /** Values never shown in a message. */
  secrets(): string[];
}

export function createAuthHeaders(auth: CarrierAuth, o: { fetchToken: (auth: OAuthClientCredentials) => Promise<IssuedToken>; now: () => number }): AuthHeaders {
  switch (auth.kind) {
    case 'none':
      return { headers: async () => ({ headers: {} }), renew: () => false, secrets: () => [] };
    case 'basic': {
      const value = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
      return { headers: async () => ({ headers: { authorization: value } }), renew: () => false, secrets: () => [auth.password] };
    }
    case 'oauth_client_credentials': {
      const tokens = createTokenCache({ fetch: () => o.fetchToken(auth), now: o.now, renewBeforeMs: auth.renewBeforeMs ?? defaultRenewBefore });
      return {
        async headers() {
          const token = await tokens.get();
          return { headers: { authorization: `Bearer ${token}` }, token };
        },
        renew(token) {
          if (token === undefined) return false;
          tokens.drop(token);
          return true;
        },
        secrets: () => [auth.clientSecret, ...(tokens.current() ? [tokens.current()!] : [])],
      };
    }
  }
}
