import http from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';

/**
 * The API's request span, around the whole of Fastify's handling (so every span made while answering,
 * Temporal calls and database queries included, is its child). It continues a caller's W3C
 * `traceparent`. Installed only when tracing is on.
 */
export function tracedServerFactory(tracer: Tracer): FastifyServerFactory {
  return (handler, options) => {
    const server = http.createServer(options.http ?? {}, (req, res) => {
      const parent = propagation.extract(context.active(), req.headers);
      const span = tracer.startSpan(
        req.method ?? 'HTTP',
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'url.path': (req.url ?? '').split('?')[0] } },
        parent,
      );
      res.once('close', () => {
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      context.with(trace.setSpan(parent, span), () => handler(req, res));
    });
    // As Fastify sets it on a server of its own making.
    if (typeof options.requestTimeout === 'number') server.requestTimeout = options.requestTimeout;
    return server;
  };
}

/** Names the request span by its route and gives it the request id (the `Request-Id` header, the logs' `request_id`). */
export function annotateRequestSpans(app: FastifyInstance) {
  app.addHook('onRequest', async (request) => {
    const span = trace.getActiveSpan();
    if (!span) return;
    span.setAttribute('request_id', String(request.id));
    const route = request.routeOptions.url;
    if (route) {
      span.setAttribute('http.route', route);
      span.updateName(`${request.method} ${route}`);
    }
  });
}
