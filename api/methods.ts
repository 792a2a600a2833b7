import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CODE, ApiError } from '../domain/index.js';

/**
 * A method a path does not have (`TRACE`, `QUERY`, a `DELETE` of a shipment) is answered 405 with
 * `Allow` listing the methods it has (RFC 9110 §15.5.6), where the router alone would answer 404 as
 * if the path named nothing, or, for a method with a body such as `QUERY`, a 422 about its missing
 * Content-Type. The routes are collected as they are registered (routes registered after this call
 * only: every route); the returned onRequest hook refuses before a body is read, after the address's
 * allowance has counted the request. A path no route has is refused there too, with `notFound`'s
 * error: the router's 404 route would otherwise read the body of a `QUERY` first, and answer 422
 * for its missing Content-Type. Where `notFound` gives none (a page's path), the 404 page answers.
 */
export function refuseUndeclaredMethod(
  app: FastifyInstance,
  notFound: (request: FastifyRequest) => ApiError | undefined,
): (request: FastifyRequest) => Promise<void> {
  const routes: Array<{ path: RegExp; methods: string[] }> = [];
  // Paths without parameters, with their methods: `/addresses/verify` beside `/addresses/:address`.
  const fixedPaths = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().map((m) => m.toUpperCase());
    const url = route.url ?? route.path;
    routes.push({ path: routePattern(url), methods });
    if (!/[:*]/.test(url)) fixedPaths.set(url, new Set([...(fixedPaths.get(url) ?? []), ...methods]));
  });
  return async function undeclaredMethod(request: FastifyRequest): Promise<void> {
    const path = request.url.split('?')[0];
    // A path of its own keeps its own methods: the router would hand another method of
    // `/addresses/verify` to `/addresses/:address` (a 404 for an address named "verify"), where the
    // document says the path has no such method.
    const fixed = fixedPaths.get(path);
    const fixedRefuses = fixed !== undefined && !fixed.has(request.method) && !(request.method === 'HEAD' && fixed.has('GET'));
    if (!request.is404 && !fixedRefuses) return;
    // The portal's and the console's paths keep their 404 page, whatever the method.
    const notFoundError = notFound(request);
    if (!notFoundError) return;
    const allowed = new Set(fixedRefuses ? fixed : routes.filter((r) => r.path.test(path)).flatMap((r) => r.methods));
    if (!allowed.size) throw notFoundError;
    // Fastify answers HEAD on every GET route.
    if (allowed.has('GET')) allowed.add('HEAD');
    const allow = METHOD_ORDER.filter((m) => allowed.delete(m)).concat([...allowed].sort()).join(', ');
    throw new ApiError(CODE.method_not_allowed, `${path} does not take ${request.method}; it takes ${allow}.`, { headers: { allow } });
  };
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A route's path (`/api/v1/shipments/:shipment`, `/docs/*`) as a pattern of the paths it serves. */
function routePattern(url: string): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const segments = url.split('/').map((segment) => {
    if (segment === '*') return '.*';
    if (segment.startsWith(':')) return '[^/]+';
    return escape(segment);
  });
  return new RegExp(`^${segments.join('/')}$`);
}
