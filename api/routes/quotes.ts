import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { normalizeAddresses } from '../catalog.js';
import { quoteShipment } from '../services/quote.js';
import { QuoteRequestSchema, type QuoteRequest } from '../schemas.js';
import { RESPONSES } from '../response-schemas.js';

export const quoteRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post<{ Body: QuoteRequest }>(
      '/quotes',
      { config: { scope: 'quotes:read' }, schema: { body: QuoteRequestSchema, summary: 'Price one parcel across services', operationId: 'createQuote', response: RESPONSES.createQuote } },
      async (request) => {
        const caller = callerOf(request);
        const { from, to } = normalizeAddresses(request.body.from, request.body.to);
        const { items, unavailable } = await quoteShipment(ctx, caller, request.body.parcel, from, to);
        return { object: 'list', data: items.map((item) => ({ object: 'quote', livemode: caller.livemode, ...item })), unavailable };
      },
    );
  };
