import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { CODE, ApiError, ERRORS, checkWebhookUrl, type ErrorCode, type FieldError } from '../domain/index.js';
import {
  COUNTRY_CODE,
  COUNTRY_FORMAT,
  CURSOR_PATTERNS,
  IDEMPOTENCY_KEY_PATTERN,
  INSTANT_FORMAT,
  INSTANT_PATTERN,
  WEBHOOK_URL_PATTERNS,
} from './schemas.js';
import { PATTERN_MESSAGES } from './schemas-shipment.js';

const CURSOR_PATTERN_SET = new Set<unknown>(Object.values(CURSOR_PATTERNS));
const INSTANT_MESSAGE = 'must be an ISO 8601 date, or a date and time with its offset (Z or ±hh:mm)';
const COUNTRY_MESSAGE = 'must be an ISO 3166-1 alpha-2 country code';

/**
 * What is wrong with a webhook URL its pattern refused, said as the registration's own check says
 * it (domain/webhooks.ts), so `http://…` is "must use https" and not a pattern quoted back.
 */
function webhookUrlMessage(url: unknown, allowPrivate: boolean): string {
  if (typeof url !== 'string') return 'must be a string';
  const check = checkWebhookUrl(url, { allowPrivate });
  if (!check.ok) return check.message;
  if (url.includes('#')) return 'must not have a fragment (#…): it is never sent to the receiver';
  return `must be an absolute URL of ${allowPrivate ? 'https or http' : 'https'} (RFC 3986): a host name or an IP address, an optional port, then a path and query of URL characters`;
}

/** The value at an error's instancePath (`/from/country`) in the data validated. */
function valueAt(data: unknown, instancePath: string): unknown {
  let value = data;
  for (const key of instancePath.split('/').slice(1)) {
    if (!value || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

/** A problem's `type`: the page that documents its code (api/problem-types.ts). */
export const problemType = (code: ErrorCode) => `/api/v1/problems/${code}`;

/** RFC 9457 problem details: the one shape of every error the API returns. */
export function problemBody(code: ErrorCode, detail: string, requestId: string, extra: Record<string, unknown> = {}) {
  const { status, title } = ERRORS[code];
  return { type: problemType(code), title, status, code, detail, request_id: requestId, ...extra };
}

export function sendProblem(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(err.extra.headers ?? {})) reply.header(name, value);
  const extra: Record<string, unknown> = { ...(err.extra.fields ?? {}) };
  if (err.extra.errors) extra.errors = err.extra.errors.map((e) => ({ ...e, path: contractPath(e.path, reply.request) }));
  const detail = err.code === CODE.not_found ? capEchoes(err.message) : err.message;
  return reply.code(err.status).type('application/problem+json').send(problemBody(err.code, detail, String(reply.request.id), extra));
}

/** The most of one requested value (an id, a path) a 404's `detail` repeats. */
export const ECHO_LIMIT = 64;

/**
 * A 404's detail repeats what was asked for ("No shipment shp_…."), which the client chose and may
 * be any length: each unbroken run of more than ECHO_LIMIT characters is cut there, with an ellipsis.
 */
export const capEchoes = (detail: string) => detail.replace(new RegExp(`\\S{${ECHO_LIMIT + 1},}`, 'gu'), (run) => `${[...run].slice(0, ECHO_LIMIT).join('')}…`);

/**
 * A field's path as the contract writes it, `shipments[3].parcel.weight_g`: array items by their
 * index in brackets, properties after dots, whichever check named it (schema validation and the
 * text checks name items by a dotted index, `shipments.3`). A name of digits is an index unless the
 * request's own data shows an object there (an unknown field named `1`, say).
 */
export function contractPath(path: string, request: Pick<FastifyRequest, 'body' | 'query' | 'headers' | 'params'>): string {
  const parts = path.split('.');
  const roots: Record<string, unknown> = { querystring: request.query, headers: request.headers, params: request.params };
  const rooted = parts.length > 1 && Object.hasOwn(roots, parts[0]);
  let value: unknown = rooted ? roots[parts[0]] : request.body;
  let out = rooted ? parts[0] : '';
  for (const part of rooted ? parts.slice(1) : parts) {
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    out = /^\d+$/.test(part) && !isObject ? `${out}[${part}]` : out ? `${out}.${part}` : part;
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return out;
}

interface AjvError {
  schemaPath?: string;
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

const STATE_REQUIRED_MESSAGE = 'is required for US and CA addresses';

/**
 * Turns schema-validation errors into the contract's `errors[]`, items named by a dotted index (`shipments.3.parcel`,
 * which sendProblem writes as the contract does); `data` is what was validated.
 */
export function fieldErrors(validation: AjvError[], context: string | undefined, data?: unknown): FieldError[] {
  const base = context === 'body' ? '' : `${context ?? ''}`;
  const seen = new Set<string>();
  const out: FieldError[] = [];
  // An empty string breaks both minLength 1 and the text pattern: the pattern's "not blank" says it once.
  const patterned = new Set(validation.filter((e) => e.keyword === 'pattern').map((e) => e.instancePath));
  const cursors = new Set(validation.filter((e) => e.keyword === 'pattern' && CURSOR_PATTERN_SET.has(e.params.pattern)).map((e) => e.instancePath));
  // A webhook URL's pattern says why it is refused; its `format: uri` and its length would say it again.
  const urls = new Map(
    validation
      .filter((e) => e.keyword === 'pattern' && (e.params.pattern === WEBHOOK_URL_PATTERNS.public || e.params.pattern === WEBHOOK_URL_PATTERNS.private))
      .map((e) => [e.instancePath, webhookUrlMessage(valueAt(data, e.instancePath), e.params.pattern === WEBHOOK_URL_PATTERNS.private)]),
  );
  for (const e of validation) {
    if (e.keyword === 'minLength' && e.params.limit === 1 && patterned.has(e.instancePath)) continue;
    // A country that is not two capitals is said so by its pattern, not again as outside the enum,
    // and a cursor too long is not a valid cursor, said once.
    if (e.keyword === 'enum' && patterned.has(e.instancePath)) continue;
    if (e.keyword === 'maxLength' && cursors.has(e.instancePath)) continue;
    let path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'if') continue; // its `then` says what is wrong, at the field
    // One of two fields (a SCAN form's shipment_ids or batch_id): the `oneOf` says it once, not each branch.
    if (e.schemaPath?.includes('/oneOf/')) continue;
    if (e.keyword === 'oneOf') message = 'must have exactly one of its alternative fields: send one, not both or neither';
    if (e.keyword === 'required') {
      path = [path, String(e.params.missingProperty)].filter(Boolean).join('.');
      message = e.params.missingProperty === 'state' ? STATE_REQUIRED_MESSAGE : 'is required';
    } else if (e.keyword === 'enum' && /(^|\/)state$/.test(e.instancePath)) {
      const country = valueAt(data, e.instancePath.replace(/state$/, 'country'));
      message = valueAt(data, e.instancePath) ? `must be a subdivision code of ${String(country)} (ISO 3166-2 without the country prefix)` : STATE_REQUIRED_MESSAGE;
    } else if (e.keyword === 'additionalProperties') {
      path = [path, String(e.params.additionalProperty)].filter(Boolean).join('.');
      message = 'is not a known field';
    } else if (urls.has(e.instancePath)) {
      message = urls.get(e.instancePath)!;
    } else if (e.keyword === 'pattern' && CURSOR_PATTERN_SET.has(e.params.pattern)) {
      message = 'is not a valid cursor';
    } else if (e.keyword === 'pattern' && e.params.pattern === INSTANT_PATTERN) {
      message = INSTANT_MESSAGE;
    } else if (e.keyword === 'pattern' && PATTERN_MESSAGES.has(String(e.params.pattern))) {
      message = PATTERN_MESSAGES.get(String(e.params.pattern))!;
    } else if (e.keyword === 'pattern') {
      message =
        e.params.pattern === COUNTRY_CODE
          ? 'must be a two-letter ISO 3166-1 alpha-2 country code, such as GB'
          : e.params.pattern === IDEMPOTENCY_KEY_PATTERN
            ? 'must be 1 to 255 printable ASCII characters'
            : 'must be printable text without control characters, and not blank';
    } else if ((e.keyword === 'format' && e.params.format === COUNTRY_FORMAT) || (e.keyword === 'enum' && /(^|\/)country$/.test(e.instancePath))) {
      message = COUNTRY_MESSAGE;
    } else if (e.keyword === 'format' && e.params.format === INSTANT_FORMAT) {
      message = INSTANT_MESSAGE;
    } else if (e.keyword === 'anyOf' || e.keyword === 'const') {
      continue; // the union's own message below says it better
    }
    if (!path) path = base || '(body)';
    else if (base) path = `${base}.${path}`;
    const key = `${path}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ path, message });
    }
  }
  const unions = validation.filter((e) => e.keyword === 'anyOf');
  for (const e of unions) {
    const path = [base, e.instancePath.replace(/^\//, '').replace(/\//g, '.')].filter(Boolean).join('.');
    out.push({ path, message: 'is not one of the allowed values' });
  }
  return out;
}

/** The request's parts that have schemas, in the order Fastify checks them. */
const SCHEMA_PARTS = ['body', 'querystring', 'headers'] as const;

/**
 * Every bad field of a request in its one 422 (contract: Errors, errors[] lists each). Fastify checks
 * the body, the query and the headers in turn and stops at the first part in error, and the checks
 * that run before them (control characters, a route that takes no body) stop before all three: a bad
 * body would hide a bad Idempotency-Key, and a control character in one field every other field's
 * error, each coming back only once the first is fixed. The other parts' schemas are run here.
 */
function withEveryFieldError(request: FastifyRequest, found: FieldError[], checked?: string): FieldError[] {
  const out = [...found];
  const paths = new Set(found.map((e) => e.path));
  for (const part of SCHEMA_PARTS) {
    const data = part === 'body' ? request.body : part === 'querystring' ? request.query : request.headers;
    // A body the parser refused (a `__proto__` member, say) is not there to check, nor raw bytes.
    if (part === checked || data === undefined || Buffer.isBuffer(data)) continue;
    const validate = request.getValidationFunction(part);
    if (!validate || validate(data)) continue;
    for (const e of fieldErrors((validate.errors ?? []) as AjvError[], part, data)) {
      if (paths.has(e.path)) continue;
      paths.add(e.path);
      out.push(e);
    }
  }
  return out;
}

/** Maps every thrown error to problem+json; nothing internal ever reaches the client. */
export function errorHandler(error: FastifyError & { validation?: AjvError[]; validationContext?: string }, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    if (error.code !== CODE.validation_failed || !error.extra.errors) return sendProblem(reply, error);
    return sendProblem(reply, new ApiError(error.code, error.message, { ...error.extra, errors: withEveryFieldError(request, error.extra.errors) }));
  }
  if (error.validation) {
    const part = error.validationContext;
    const data = part === 'body' ? request.body : part === 'querystring' ? request.query : part === 'params' ? request.params : part === 'headers' ? request.headers : undefined;
    const errors = withEveryFieldError(request, fieldErrors(error.validation, part, data), part);
    return sendProblem(reply, new ApiError(CODE.validation_failed, 'The request has invalid fields; see errors.', { errors }));
  }
  if (error.statusCode === 415) {
    return sendProblem(reply, new ApiError(CODE.unsupported_media_type, 'Send the body as application/json.'));
  }
  if (error.statusCode === 413) {
    // The route's own limit: 64 KiB, or more where a route takes a larger body (a batch, 2 MiB).
    const limit = request.routeOptions.bodyLimit ?? 64 * 1024;
    const size = limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${Math.round(limit / 1024)} KiB`;
    return sendProblem(reply, new ApiError(CODE.payload_too_large, `The body is over ${size}.`));
  }
  // An empty or unparseable JSON body is answered by our own parser (api/json-body.ts).
  if (error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return sendProblem(reply, new ApiError(CODE.invalid_json, 'The body does not match its Content-Length.'));
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    // Anything else the HTTP layer refused (a malformed header, say): a client error, said plainly.
    return sendProblem(reply, new ApiError(CODE.validation_failed, `The request could not be read: ${error.message}`));
  }
  if (isDependencyUnavailable(error)) {
    // A database restart or a Temporal outage is not our bug and not the client's: retry soon.
    request.log.warn({ err: error }, 'dependency unavailable');
    return sendProblem(
      reply,
      new ApiError(CODE.service_unavailable, 'A dependency (database or Temporal) is briefly unavailable; retry the request.', {
        headers: { 'retry-after': '1' },
      }),
    );
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendProblem(reply, new ApiError(CODE.internal_error, 'Something went wrong on our side; it has been logged.'));
}

/** PostgreSQL SQLSTATEs that mean "the database is not there right now", not "the query is wrong". */
const PG_UNAVAILABLE = /^(08...|57P0[1-3]|53300|57014|55P03|25P03|40001|40P01)$/;
/** Node's socket errors: the database or Temporal could not be reached or dropped us. */
const SOCKET_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** gRPC status codes from Temporal: UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, CANCELLED. */
const GRPC_UNAVAILABLE = new Set([14, 4, 8, 1]);
const PG_CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'is not queryable',
  'Client was closed',
  'terminating connection',
  // @temporalio/client when the frontend does not answer.
  'Failed to connect before the deadline',
];

/**
 * Whether an error (or one along its `cause` chain) says PostgreSQL or Temporal is unreachable,
 * restarting or timing out, so the request should be retried rather than reported as our fault.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const x = e as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
    if (typeof x.code === 'string' && (PG_UNAVAILABLE.test(x.code) || SOCKET_UNAVAILABLE.has(x.code))) return true;
    if (typeof x.code === 'number' && GRPC_UNAVAILABLE.has(x.code) && (x.name === 'ServiceError' || 'details' in x || 'metadata' in x)) {
      return true;
    }
    if (x.name === 'WorkflowUpdateRPCTimeoutOrCancelledError') return true;
    if (typeof x.message === 'string' && PG_CLIENT_MESSAGES.some((m) => (x.message as string).includes(m))) return true;
    e = x.cause;
  }
  return false;
}
