import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CODE, ApiError, type FieldError } from '../domain/index.js';

/**
 * The JSON body parser (contract: Conventions and Errors), in place of Fastify's: the bytes must be
 * UTF-8 (JSON's only encoding, RFC 8259), where Fastify's decodes them with replacement characters and
 * the customer's text would be stored changed without a word; a body in another declared charset is 415; and
 * a member that could reach an object's prototype (`__proto__`, `constructor.prototype`), which
 * Fastify's answers as "not valid JSON", is refused as the unknown field it is.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes no parameters in its body (a void, a DELETE): an empty body sent as JSON and
     * `{}` are no body, and a field is refused (`refuseParameters`).
     */
    takesNoBody?: boolean;
  }
}

export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseJsonBody(request, body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  // Every route that takes no body gets the same check, after the app's own preValidation hooks
  // (control characters first, as on every route). Routes registered after this hook only: all of them.
  app.addHook('onRoute', (route) => {
    if (!route.config?.takesNoBody) return;
    const own = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
    route.preValidation = [...own, refuseParameters];
  });
}

/**
 * A route that takes no parameters: a body, if any, is empty or an empty object, and then the same
 * request as none (for an Idempotency-Key's fingerprint). A field is refused as on every route, never
 * silently ignored.
 */
async function refuseParameters(request: FastifyRequest): Promise<void> {
  const body: unknown = request.body;
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(CODE.validation_failed, 'This request takes no parameters: send no body, or {}.', {
      errors: [{ path: '(body)', message: 'must be an empty object' }],
    });
  }
  const fields = Object.keys(body);
  if (fields.length) {
    throw new ApiError(CODE.validation_failed, 'This request takes no parameters.', {
      errors: fields.map((path) => ({ path, message: 'is not a known field' })),
    });
  }
  request.body = undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJsonBody(request: FastifyRequest, body: Buffer): unknown {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset && !['utf-8', 'utf8', 'us-ascii'].includes(charset)) {
    throw new ApiError(CODE.unsupported_media_type, `Send the body as application/json in UTF-8, not ${charset}.`);
  }
  if (body.length === 0) {
    // Many HTTP clients label every POST or DELETE as JSON, with or without a body.
    if (request.routeOptions.config?.takesNoBody) return undefined;
    throw new ApiError(CODE.invalid_json, 'The body is empty; send a JSON object.');
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new ApiError(CODE.bad_request, 'The body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(CODE.invalid_json, 'The body is not valid JSON.');
  }
  const forbidden = prototypeMembers(value);
  if (forbidden.length) {
    throw new ApiError(CODE.validation_failed, 'The request has invalid fields; see errors.', {
      errors: forbidden.map((path) => ({ path, message: 'is not a known field' }) satisfies FieldError),
    });
  }
  return value;
}

/** Paths of `__proto__` members and of `constructor` objects with a `prototype`; iterative, so nesting cannot overflow. */
function prototypeMembers(value: unknown): string[] {
  const found: string[] = [];
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length && found.length < 20) {
    const [v, path] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((item, i) => [String(i), item]) : Object.entries(v as Record<string, unknown>);
    for (const [key, child] of entries) {
      const childPath = path ? `${path}.${key}` : key;
      if (key === '__proto__') found.push(childPath);
      else if (key === 'constructor' && child && typeof child === 'object' && Object.hasOwn(child, 'prototype')) found.push(`${childPath}.prototype`);
      else stack.push([child, childPath]);
    }
  }
  return found;
}
