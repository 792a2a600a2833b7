import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { ApiError, CODE, makeId } from '../domain/index.js';
import { createAuthenticator } from './auth.js';
import { createRateLimiter } from './rate-limit.js';
import { createAddressLimiter } from './address-limit.js';
import { clientErrorHandler, frameworkErrors, refuseBadText, refuseContentCoding, refuseBadHost, trimBodyText } from './hardening.js';
import { refuseUndeclaredMethod } from './methods.js';
import { ApiLogController, serializeRequest } from './logging.js';
import { createValidatorCompiler, refuseUnknownQuery } from './validation.js';
import { errorHandler, sendProblem } from './problem.js';
import type { AppContext } from './context.js';
import { healthRoutes } from './routes/health.js';
import { quoteRoutes } from './routes/quotes.js';
import { shipmentRoutes } from './routes/shipments.js';
import { voidRoute } from './routes/void.js';
import { accountRoutes } from './routes/account.js';
import { eventRoutes } from './routes/events.js';
import { webhookRoutes } from './routes/webhooks.js';
import { labelRoutes } from './routes/labels.js';
import { documentRoutes } from './routes/documents.js';
import { trackingRoutes } from './routes/tracking.js';
import { upsTrackAlertRoutes } from './routes/ups-track-alert.js';
import { addressRoutes } from './routes/addresses.js';
import { addressVerifyRoutes } from './routes/address-verify.js';
import { scanFormRoutes } from './routes/scan-forms.js';
import { pickupRoutes } from './routes/pickups.js';
import { batchRoutes } from './routes/batches.js';
import { registerMetrics } from './metrics.js';
import { isPagePath, pageNotFound, webRoutes } from './web/index.js';
import { loadSession } from './web/session.js';
import { registerResponseSchemas } from './response-schemas.js';
import { registerIdempotency } from './idempotency.js';
import { registerJsonBody } from './json-body.js';
import { problemTypeRoutes } from './problem-types.js';
import { referencePage } from './reference-page.js';
import { annotateRequestSpans, tracedServerFactory } from './tracing.js';

/** The request context (the clock optional: the real one by default), and how the app logs and traces. */
export interface AppDeps extends Omit<AppContext, 'now'> {
  now?: () => Date;
  logger?: Logger | boolean;
  /** OpenTelemetry (runtime/tracing.ts): each request becomes a span; absent, nothing is traced. */
  tracer?: Tracer;
}

/** Fastify's own settings: logging, parsing limits, time limits and the trusted proxies. */
function serverOptions(deps: AppDeps) {
  return {
  // Request lines never show headers or a secret in the URL (a label link's sig, a key in a query).
  ...(typeof deps.logger === 'object'
    ? { loggerInstance: deps.logger.child({}, { serializers: { req: serializeRequest } }) as unknown as FastifyBaseLogger }
    : { logger: deps.logger ? { level: 'info', serializers: { req: serializeRequest } } : false }),
  logController: new ApiLogController({ requestIdLogLabel: 'request_id' }),
  frameworkErrors,
  clientErrorHandler,
  bodyLimit: 64 * 1024,
  // A path segment of any length Node reads (its headers limit is 16 KiB) reaches its route, so a
  // keyed request with a long id is authenticated, rate-limited and answered 404 by the route.
  // With Fastify's default (100) the router misses it: 404 before the key is looked at, without
  // the RateLimit headers, taken from the address's allowance instead of the key's.
  routerOptions: { maxParamLength: 16 * 1024 },
  genReqId: () => makeId('req', Date.now(), randomBytes(16)),
  // request.ip is the client: X-Forwarded-For is honoured only from the proxies listed (TRUSTED_PROXIES).
  trustProxy: deps.config.trustedProxies.length ? [...deps.config.trustedProxies] : false,
  return503OnClosing: false,
  // A request must arrive whole in time, headers and body (contract: 408 request_timeout): a body
  // that stops coming would otherwise hold its connection for ever (Fastify's default is no limit).
  // Node looks for late requests every connectionsCheckingInterval.
  requestTimeout: deps.config.requestTimeoutMs,
  http: {
    headersTimeout: Math.min(deps.config.requestTimeoutMs, 60_000),
    // A request without Host is refused by refuseBadHost, as problem+json with a Request-Id.
    requireHostHeader: false,
    connectionsCheckingInterval: Math.min(5_000, Math.max(100, Math.floor(deps.config.requestTimeoutMs / 4))),
  },
  ...(deps.tracer ? { serverFactory: tracedServerFactory(deps.tracer) } : {}),
  };
}

/** The HTTP API: authentication, validation and problem errors around thin route handlers. */
export async function createApp(deps: AppDeps): Promise<FastifyInstance> {
  const ctx: AppContext = { ...deps, now: deps.now ?? (() => new Date()) };
  const app = Fastify(serverOptions(deps));
  if (deps.tracer) annotateRequestSpans(app);

  // JSON only (contract: Conventions); Fastify would otherwise accept text/plain bodies too.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);
  app.setValidatorCompiler(createValidatorCompiler());
  refuseUnknownQuery(app);
  // Response schemas describe (api/response-schemas.ts); they never reshape an answer on the wire.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerResponseSchemas(app);
  app.setErrorHandler(errorHandler);
  // A path no route has: the portal's page, or a problem.
  const noRoute = (request: FastifyRequest) =>
    isPagePath(request.url) ? undefined : new ApiError(CODE.not_found, `No route ${request.method} ${request.url.split('?')[0]}.`);
  app.setNotFoundHandler((request, reply) => {
    const error = noRoute(request);
    return error ? sendProblem(reply, error) : pageNotFound(reply);
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('request-id', request.id);
  });
  app.addHook('onRequest', refuseBadHost);
  closeGracefully(app);
  // Authenticate (and rate-limit) first: nothing about a body is said to a caller without a key.
  app.addHook(
    'onRequest',
    createAuthenticator({
      db: ctx.db,
      now: ctx.now,
      onAuthenticated: createRateLimiter({ db: ctx.db }),
      addressLimiter: createAddressLimiter({ db: ctx.db, policy: ctx.config.addressRateLimit }),
      signedInUser: async (request) => (await loadSession(ctx, request))?.user.id,
    }),
  );
  app.addHook('onRequest', refuseUndeclaredMethod(app, noRoute));
  app.addHook('onRequest', refuseContentCoding);
  app.addHook('preValidation', refuseBadText);
  app.addHook('preValidation', trimBodyText);
  // The Idempotency-Key protocol of the routes that take one (config.idempotency).
  registerIdempotency(app, { db: ctx.db, now: ctx.now });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Parcel Shipping API', version: '1' },
      servers: [{ url: ctx.config.publicBaseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    // Shared schemas keep their names: #/components/schemas/Shipment, not def-0.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });

  await app.register(healthRoutes(ctx));
  registerMetrics(app, undefined, ctx.db);
  await app.register(referencePage(ctx));
  // The customer portal (/portal) and the admin console (/admin): pages, not API routes.
  await app.register(webRoutes(ctx));
  await app.register(
    async (v1) => {
      v1.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      await v1.register(problemTypeRoutes());
      await v1.register(quoteRoutes(ctx));
      await v1.register(shipmentRoutes(ctx));
      await v1.register(voidRoute(ctx));
      await v1.register(accountRoutes(ctx));
      await v1.register(eventRoutes(ctx));
      await v1.register(webhookRoutes(ctx));
      await v1.register(labelRoutes(ctx));
      await v1.register(documentRoutes(ctx));
      await v1.register(trackingRoutes(ctx));
      await v1.register(upsTrackAlertRoutes(ctx));
      await v1.register(addressRoutes(ctx));
      await v1.register(addressVerifyRoutes(ctx));
      await v1.register(scanFormRoutes(ctx));
      await v1.register(pickupRoutes(ctx));
      await v1.register(batchRoutes(ctx));
    },
    { prefix: '/api/v1' },
  );
  return app;
}

/**
 * Shutting down: requests already in flight are answered, new ones get a problem+json 503 (Fastify's
 * own is plain JSON), answers end their connection, and connections that fall idle are closed, since
 * keep-alive clients would otherwise hold the process open after the last answer.
 */
function closeGracefully(app: FastifyInstance) {
  let closing = false;
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    sweep.unref();
  });
  app.addHook('onClose', async () => clearInterval(sweep));
  app.addHook('onRequest', async () => {
    if (closing) {
      throw new ApiError(CODE.service_unavailable, 'This instance is shutting down; retry the request.', {
        headers: { 'retry-after': '1' },
      });
    }
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
