import { CarrierError } from '../carrier-error.js';
import { createAuthHeaders, tokenFrom, tokenRequest } from './auth.js';
import { classifyAnswer, isWrite, labelOf, unreadableAnswer } from './classify.js';
import { createCallBudget, createRateLimitGate } from './limits.js';
import { exchange } from './transport.js';
import type { CarrierAnswer, CarrierCallSpec, CarrierClientDeclaration, CarrierRequest, OAuthClientCredentials } from './types.js';

/** The shared carrier HTTP client: one per carrier connection, made from its declaration. */
export interface CarrierClient {
  readonly carrierCode: string;
  /**
   * One request with the carrier's credentials, its limits kept: whatever status the carrier
   * answered (a 429 beyond what the limits wait out is thrown, as is a transport failure, both
   * classified). After a 401 the token is renewed once and the request sent once more.
   */
  send(request: CarrierRequest): Promise<CarrierAnswer>;
  /** A request whose 2xx answer is decoded into its result; any other answer is thrown, classified once. */
  call<T>(spec: CarrierCallSpec<T>): Promise<T>;
  /** The failure a non-2xx answer is, classified by its status and the carrier's hint. */
  failure(request: CarrierRequest, answer: CarrierAnswer): CarrierError;
  /** The failure a 2xx answer we cannot read is: ambiguous for a write, retryable for a read. */
  unreadable(request: CarrierRequest, status: number, what?: string): CarrierError;
  /** Calls counted against the carrier's hourly quota in the last hour (0 without one). */
  callsSpent(): number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createCarrierClient(declaration: CarrierClientDeclaration): CarrierClient {
  const parsed = new URL(declaration.baseUrl); // a misconfigured URL fails when the adapter is made, not on a purchase
  const baseUrl = parsed.origin + parsed.pathname.replace(/\/+$/, '');
  const { carrierCode, name } = declaration;
  const now = declaration.now ?? Date.now;
  const limits = declaration.limits ?? {};
  const budget = limits.callsPerHour === undefined ? undefined : createCallBudget({ callsPerHour: limits.callsPerHour, now, name, carrierCode });
  const gate = createRateLimitGate(limits, { now, sleep: declaration.sleep ?? realSleep, random: declaration.random ?? Math.random, name, carrierCode });
  const auth = createAuthHeaders(declaration.auth, { fetchToken, now });

  function failure(request: CarrierRequest, answer: CarrierAnswer): CarrierError {
    return redact(classifyAnswer(declaration, request, answer, now()));
  }

  /** Credentials and tokens never reach a message, whatever the carrier echoed back. */
  function redact(error: CarrierError): CarrierError {
    let message = error.message;
    for (const secret of auth.secrets()) if (secret) message = message.split(secret).join('[redacted]');
    return message === error.message ? error : new CarrierError(error.kind, message, error.details);
  }

  async function fetchToken(oauth: OAuthClientCredentials) {
    const request = tokenRequest(oauth);
    const answer = await limited(request, {});
    return tokenFrom(oauth, answer, () => failure(request, answer), { name, carrierCode });
  }

  /** One exchange under the carrier's limits: its hourly quota, and what a 429 says. */
  async function limited(request: CarrierRequest, credentials: Record<string, string>): Promise<CarrierAnswer> {
    const url = new URL(baseUrl + request.path);
    for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v);
    const label = labelOf(declaration, request);
    for (let attempt = 0; ; attempt++) {
      await gate.pass(attempt);
      budget?.spend(`${request.method} ${request.path.split('?')[0]}`);
      const answer = await exchange(
        {
          url,
          method: request.method,
          headers: {
            accept: 'application/json',
            ...(request.form ? { 'content-type': 'application/x-www-form-urlencoded' } : request.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...declaration.headers?.(request),
            ...request.headers,
            ...credentials,
          },
          body: request.form ? new URLSearchParams(request.form).toString() : request.body === undefined ? undefined : JSON.stringify(request.body),
          timeoutMs: request.timeoutMs ?? declaration.timeoutMs,
          dispatcher: declaration.dispatcher,
        },
        { label, write: isWrite(request.operation), carrierCode },
      ).catch((error: unknown) => Promise.reject(error instanceof CarrierError ? redact(error) : error));
      if (answer.status !== 429) return answer;
      const limitedBy = failure(request, answer);
      if (!(await gate.again(limitedBy.details.retryAfterMs, attempt))) throw limitedBy;
    }
  }

  async function send(request: CarrierRequest): Promise<CarrierAnswer> {
    if (request.authenticated === false) return limited(request, {});
    const first = await auth.headers();
    const answer = await limited(request, first.headers);
    // A token the carrier no longer takes (expired early, revoked): one new token, one more try.
    if (answer.status !== 401 || !auth.renew(first.token)) return answer;
    return limited(request, (await auth.headers()).headers);
  }

  async function call<T>(spec: CarrierCallSpec<T>): Promise<T> {
    const answer = await send(spec);
    if (answer.status < 200 || answer.status >= 300) throw failure(spec, answer);
    let decoded: T | undefined;
    // A body that is not JSON is not what a JSON API promised; an empty one reads as `{}`.
    if (answer.body !== undefined || answer.text === '') {
      try {
        decoded = spec.decode(answer.body ?? {}, answer.status, answer);
      } catch {
        decoded = undefined;
      }
    }
    if (decoded === undefined) throw unreadableAnswer(declaration, spec, answer.status);
    return decoded;
  }

  return {
    carrierCode,
    send,
    call,
    failure,
    unreadable: (request, status, what) => unreadableAnswer(declaration, request, status, what),
    callsSpent: () => budget?.spent() ?? 0,
  };
}
