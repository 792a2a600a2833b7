import type { FastifyPluginAsync } from 'fastify';
import { findOwnEvent, listEvents } from '../../db/index.js';
import { CODE, ApiError, EVENT_TYPES, eventPayload } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { decodeCursor, listPage } from '../pagination.js';
import { OPTIONAL_TEXT, pageQueryOf } from '../schemas.js';
import { Type, type Static } from '@sinclair/typebox';
import { RESPONSES } from '../response-schemas.js';

const EventsQuery = Type.Object(
  {
    ...pageQueryOf('evt'),
    // A type no event has is a mistake to report (422), as an unknown shipment status is, not an empty list.
    type: Type.Optional(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))),
    // Text without control characters, which no query string may hold (api/hardening.ts).
    shipment: Type.Optional(Type.String({ maxLength: 100, pattern: OPTIONAL_TEXT })),
  },
  { additionalProperties: false },
);

export const eventRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.get<{ Querystring: Static<typeof EventsQuery> }>(
      '/events',
      { config: { scope: 'shipments:read' }, schema: { querystring: EventsQuery, summary: 'List emitted events, newest first', operationId: 'listEvents', response: RESPONSES.listEvents } },
      async (request) => {
        const caller = callerOf(request);
        const q = request.query;
        const { rows, hasMore } = await listEvents(ctx.db, {
          ...caller.owner,
          type: q.type,
          shipmentId: q.shipment,
          before: q.cursor ? decodeCursor(q.cursor, 'evt') : undefined,
          limit: q.limit ?? 20,
        });
        return listPage({ rows, hasMore }, eventPayload);
      },
    );
    app.get<{ Params: { id: string } }>(
      '/events/:id',
      { config: { scope: 'shipments:read' }, schema: { params: Type.Object({ id: Type.String() }), summary: 'Read one event', operationId: 'retrieveEvent', response: RESPONSES.retrieveEvent } },
      async (request) => {
        const row = await findOwnEvent(ctx.db, callerOf(request).owner, request.params.id);
        if (!row) throw new ApiError(CODE.not_found, `No event ${request.params.id}.`);
        return eventPayload(row);
      },
    );
  };
