import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CODE, ApiError, ERRORS, makeId, type ErrorCode, type FieldError } from '../domain/index.js';
import { problemBody, sendProblem } from './problem.js';
import { CONTROL_CHARACTERS, COUNTRY_FORMAT, STATE_FORMAT } from './schemas.js';

/**
 * Input no one can break: what the router and the HTTP parser refuse is answered as problem+json
 * too, and control characters and unpaired surrogates never reach a handler (nor PostgreSQL, which
 * refuses NUL in text and a `\ud800` escape in jsonb).
 */

const CONTROL = new RegExp(`[${CONTROL_CHARACTERS}]`);
/** Half of a UTF-16 surrogate pair with no other half: JSON allows the escape, Unicode text does not. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string of a request, if anything. */
function textProblem(text: string): string | undefined {
  if (CONTROL.test(text)) return 'must not contain control characters';
  if (UNPAIRED_SURROGATE.test(text)) return 'must be valid Unicode text (it has an unpaired surrogate, such as \\ud800)';
  return undefined;
}
const MAX_REPORTED = 20;

/**
 * The router's own refusals. A path that is not valid percent-encoding (`%zz`, or bytes that are not
 * UTF-8) cannot be read at all: 400 `bad_request` (contract: "bad encoding"). Anything else the
 * router refuses names no resource.
 */
export function frameworkErrors(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) {
  reply.header('request-id', request.id);
  if (error.code === 'FST_ERR_BAD_URL') {
    return sendProblem(reply, new ApiError(CODE.bad_request, 'The path is not valid percent-encoded UTF-8.'));
  }
  return sendProblem(reply, new ApiError(CODE.not_found, 'No such resource: the path is not one this API serves.'));
}

/**
 * The query parameters that are not valid percent-encoded UTF-8 (`?reference=%FF`, `?cursor=%%%`),
 * as `errors[]`: the parser keeps such an escape as text, and the request must not go on with it.
 */
export function undecodableQuery(url: string): FieldError[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const found: FieldError[] = [];
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      return undefined;
    }
  };
  for (const pair of url.slice(q + 1).split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const [name, value] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const decodedName = decode(name);
    if (decodedName === undefined || decode(value) === undefined) {
      found.push({ path: `querystring.${decodedName ?? name}`, message: 'is not valid percent-encoded UTF-8' });
    }
  }
  return found;
}

/**
 * App-level onRequest hook, after authentication and before the body is read: a body in a content
 * coding (gzip, br…) is 415, rather than its bytes being read as if they were JSON. A request with no
 * body to read (none sent, or a GET's or HEAD's, which is never read) is not refused for the header:
 * 415 is not a status that `/healthz`'s or a GET's description has.
 */
export async function refuseContentCoding(request: FastifyRequest): Promise<void> {
  if (!carriesBody(request)) return;
  const coding = request.headers['content-encoding']?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    throw new ApiError(CODE.unsupported_media_type, `Send the body without a content coding (Content-Encoding: ${coding} is not accepted).`);
  }
}

/** Whether the request has a body the server reads (RFC 9112 §6.3: Transfer-Encoding or a Content-Length above 0). */
function carriesBody(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
}

/**
 * How many times a header was sent (`name` in lower case). Node keeps the first of some headers
 * (Host, Authorization) and joins others with ", " (Idempotency-Key), so a repeat must be counted.
 */
export function timesSent(request: FastifyRequest, name: string): number {
  const raw = request.raw?.rawHeaders ?? [];
  let sent = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === name.length && raw[i].toLowerCase() === name) sent++;
  return sent;
}

/**
 * App-level onRequest hook, before the key is looked at: an HTTP/1.1 request without a Host header,
 * or any request with two, is a 400 (RFC 9112 §3.2). Node's own check (turned off in app.ts)
 * answers the first with a bare 400, without a Request-Id or a problem document, and Node keeps
 * the first of two Host headers.
 */
export async function refuseBadHost(request: FastifyRequest): Promise<void> {
  if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
    throw new ApiError(CODE.bad_request, 'An HTTP/1.1 request must send a Host header.');
  }
  if (timesSent(request, 'host') > 1) throw new ApiError(CODE.bad_request, 'Send one Host header, not several.');
}

/** Requests the HTTP parser cannot read (malformed request line, oversized headers, unknown method). */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let code: ErrorCode = CODE.bad_request;
  let detail = 'The request is not valid HTTP.';
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    code = CODE.header_fields_too_large;
    detail = 'The request headers are too large.';
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    code = CODE.request_timeout;
    detail = 'The request was not received in time.';
  }
  const id = makeId('req', Date.now(), randomBytes(16));
  const body = JSON.stringify(problemBody(code, detail, id));
  const { status } = ERRORS[code];
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  // The error's rawPacket holds the request's bytes, Authorization included: never log it.
  socket.destroy();
}

/**
 * Paths of every string (keys included) holding a control character or an unpaired surrogate;
 * iterative, so nesting cannot overflow.
 */
function badTextPaths(value: unknown, base: string): FieldError[] {
  const found: FieldError[] = [];
  const stack: Array<[unknown, string]> = [[value, base]];
  while (stack.length && found.length < MAX_REPORTED) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) found.push({ path: path || '(body)', message: problem });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], path ? `${path}.${i}` : String(i)]);
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const problem = textProblem(k);
        const name = problem ? JSON.stringify(k) : k;
        const childPath = path ? `${path}.${name}` : name;
        if (problem) found.push({ path: childPath, message: `field names ${problem}` });
        else stack.push([child, childPath]);
      }
    }
  }
  return found;
}

/**
 * App-level preValidation hook: a path segment with control characters or an unpaired surrogate
 * names nothing; in a query or any JSON body, scoped route or not (a carrier's push included), such
 * text is invalid, and so is a query parameter that is not valid percent-encoding (a bad parameter
 * value: 422, contract: lists). PostgreSQL refuses NUL in text and a lone `\ud800` in jsonb, so
 * letting either through would make a step that can never succeed (a shipment's addresses are
 * stored as jsonb).
 */
export async function refuseBadText(request: FastifyRequest): Promise<void> {
  const params = request.params as Record<string, unknown> | undefined;
  if (params && Object.values(params).some((v) => typeof v === 'string' && textProblem(v))) {
    throw new ApiError(CODE.not_found, 'No such resource.');
  }
  const jsonBody = !Buffer.isBuffer(request.body);
  const errors = [...undecodableQuery(request.url), ...badTextPaths(request.query, 'querystring'), ...(jsonBody ? badTextPaths(request.body, '') : [])];
  if (errors.length) {
    // Trimmed as validation would have had it: the error handler checks the rest of the request
    // against its schemas, so that this 422 lists every bad field (api/problem.ts).
    trimStrings(request);
    throw new ApiError(CODE.validation_failed, 'The request has invalid fields; see errors.', { errors: errors.slice(0, MAX_REPORTED) });
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The strings `trimBodyText` changed, as they were sent, by the object or array holding them and
     * the key (an array's index as a string): the Idempotency-Key's fingerprint is over the body as
     * parsed (contract: Idempotency), so `" X "` and `"X"` are two requests there.
     */
    untrimmed?: WeakMap<object, Map<string, string>>;
  }
}

/**
 * Trims every string of a JSON body before validation (contract: Resources, "strings are trimmed"),
 * so a length limit counts what is kept: a 200-character name sent with spaces around it is
 * not too long. Runs after `refuseBadText`, which refuses a control character (a trailing
 * newline included) rather than letting trimming hide it. Iterative, so nesting cannot overflow.
 * What it changes is kept as sent in `request.untrimmed`.
 */
export async function trimBodyText(request: FastifyRequest): Promise<void> {
  trimStrings(request);
}

function trimStrings(request: FastifyRequest): void {
  // The API's bodies only: a portal form's password keeps its spaces.
  if (!request.url.startsWith('/api/v1/')) return;
  if (!request.body || typeof request.body !== 'object' || Buffer.isBuffer(request.body)) return;
  const stack: unknown[] = [request.body];
  while (stack.length) {
    const v = stack.pop() as Record<string, unknown> | unknown[];
    const keys = Array.isArray(v) ? v.keys() : Object.keys(v);
    for (const k of keys) {
      const child = (v as Record<string | number, unknown>)[k];
      if (typeof child === 'string') {
        const trimmed = child.trim();
        if (trimmed !== child) keepAsSent(request, v, String(k), child);
        (v as Record<string | number, unknown>)[k] = trimmed;
      } else if (child && typeof child === 'object') stack.push(child);
    }
  }
  foldCountries(request, request.routeOptions?.schema?.body, request.body);
}

/**
 * A country is folded to capitals before validation (contract: Resources, "country case-folded"),
 * as its text is trimmed, so the schema's enum of assigned codes (api/schemas.ts) is what is checked
 * and what the document says: `gb` is GB. The fields are those the body's schema marks with the
 * country format. A state is folded the same way, so the codes US and CA take are checked as
 * capitals. What it changes is kept as sent in `request.untrimmed`.
 */
function foldCountries(request: FastifyRequest, schema: unknown, value: unknown): void {
  const stack: Array<[unknown, unknown]> = [[schema, value]];
  while (stack.length) {
    const [s, v] = stack.pop()! as [SchemaNode | undefined, unknown];
    if (!s || !v || typeof v !== 'object') continue;
    // A list of objects (customs lines) folds each one's countries by the items' schema.
    if (Array.isArray(v)) {
      for (const item of v) stack.push([s.items, item]);
      continue;
    }
    for (const [key, property] of Object.entries(s.properties ?? {})) {
      const child = (v as Record<string, unknown>)[key];
      if (folded(property) && typeof child === 'string') {
        const folded = child.toUpperCase();
        if (folded !== child) {
          keepAsSent(request, v, key, child);
          (v as Record<string, unknown>)[key] = folded;
        }
      } else if (child && typeof child === 'object') stack.push([property, child]);
    }
  }
}

interface SchemaNode {
  items?: SchemaNode;
  properties?: Record<string, SchemaNode & { format?: string; anyOf?: Array<{ format?: string }> }>;
}

/** A country or a state, alone or as the text side of a nullable field (an edit's `state: null`). */
function folded(property: { format?: string; anyOf?: Array<{ format?: string }> }): boolean {
  const isFolded = (format?: string) => format === COUNTRY_FORMAT || format === STATE_FORMAT;
  return isFolded(property.format) || (property.anyOf ?? []).some((p) => isFolded(p.format));
}

function keepAsSent(request: FastifyRequest, holder: object, key: string, text: string): void {
  request.untrimmed ??= new WeakMap();
  const kept = request.untrimmed.get(holder) ?? new Map<string, string>();
  // The text as sent: a country trimmed, then folded, keeps what came before both.
  if (!kept.has(key)) kept.set(key, text);
  request.untrimmed.set(holder, kept);
}
