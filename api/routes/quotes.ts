import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { quoteShipment } from '../services/quote.js';
import { shipmentTerms } from '../services/shipment-terms.js';
import { QuoteRequestSchema, type QuoteRequest } from '../schemas-shipment.js';
import { RESPONSES } from '../response-schemas.js';

export const quoteRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post<{ Body: QuoteRequest }>(
      '/quotes',
      { config: { scope: 'quotes:read' }, schema: { body: QuoteRequestSchema, summary: 'Price one parcel across services', operationId: 'createQuote', response: RESPONSES.createQuote } },
      async (request) => {
        const caller = callerOf(request);
        // International routes are quoted without customs (contract: Carriers); customs sent are checked as a purchase's.
        const terms = shipmentTerms(request.body, caller.account.currency, 'quote');
        const { items, unavailable } = await quoteShipment(ctx, caller, request.body.parcel, terms.from, terms.to, {
          terms: { options: terms.options, isReturn: terms.isReturn },
        });
        return { object: 'list', data: items.map((item) => ({ object: 'quote', livemode: caller.livemode, ...item })), unavailable };
      },
    );
  };
