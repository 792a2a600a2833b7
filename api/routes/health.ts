import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { CODE, ApiError } from '../../domain/index.js';
import { RESPONSES } from '../response-schemas.js';

/** `/healthz`: the process is up. `/readyz`: the database and Temporal answer. No authentication. */
export const healthRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.get('/healthz', { schema: { summary: 'The process is up (liveness)', operationId: 'health', security: [], response: RESPONSES.health } }, async () => ({
      status: 'ok' as const,
    }));
    app.get('/readyz', { schema: { summary: 'The database and Temporal answer (readiness)', operationId: 'ready', security: [], response: RESPONSES.ready } }, async () => {
      try {
        await ctx.db.execute(sql`select 1`);
        await ctx.temporal.connection.workflowService.getSystemInfo({});
      } catch {
        throw new ApiError(CODE.service_unavailable, 'A dependency (database or Temporal) is not reachable.');
      }
      return { status: 'ready' as const };
    });
  };
