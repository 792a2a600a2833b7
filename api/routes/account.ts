import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { findAccount } from '../../db/index.js';
import { balanceToJson } from '../../domain/index.js';
import { RESPONSES } from '../response-schemas.js';

export const accountRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.get('/account/balance', { config: { scope: 'account:read' }, schema: { summary: 'Amount available to spend now', operationId: 'retrieveBalance', response: RESPONSES.balance } }, async (request) => {
      const caller = callerOf(request);
      const account = (await findAccount(ctx.db, caller.account.id)) ?? caller.account;
      return balanceToJson(account, caller.livemode);
    });
  };
