import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import scalar from '@scalar/fastify-api-reference';
import type { AppContext } from './context.js';

/**
 * The API reference at /docs, rendered from the served OpenAPI document by Scalar's Fastify
 * integration. Its script is served by this process (no CDN, no web fonts): the page works offline.
 * `/` points an integrator at it.
 */
export const referencePage = (_ctx: AppContext): FastifyPluginAsync =>
  fp(async (app) => {
    await app.register(scalar, {
      routePrefix: '/docs',
      // Offline: no fonts from a CDN, and no AI agent, which Scalar turns on for localhost and which
      // fetches a registry from proxy.scalar.com as the page loads.
      configuration: {
        title: 'Parcel Shipping API reference',
        pageTitle: 'Parcel Shipping API reference',
        withDefaultFonts: false,
        hideClientButton: true,
        agent: { disabled: true },
      },
    });
    // Browsers ask for it with every page (/docs, the portal): no icon, and no 404 in their console.
    app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Parcel Shipping API</title></head><body>' +
          '<h1>Parcel Shipping API</h1><ul>' +
          '<li><a href="/docs">API reference</a></li>' +
          '<li><a href="/api/v1/openapi.json">OpenAPI document</a></li>' +
          '</ul></body></html>',
      ),
    );
  });
