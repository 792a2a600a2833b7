import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { field, type Form } from './forms.js';
import { html } from './html.js';
import { sendPage } from './layout.js';
import { loadSession, sameToken } from './session.js';

/**
 * The guard of every signed-in page: a session (else the sign-in page), the right kind of user
 * (admins see the admin console instead of the portal), and the session's CSRF token on every POST.
 */
export function requireUser(ctx: AppContext, kind: 'customer' | 'admin') {
  return async (request: FastifyRequest<{ Body?: Form }>, reply: FastifyReply) => {
    const session = await loadSession(ctx, request);
    if (!session) return reply.redirect('/portal/login', 303);
    if (kind === 'customer' && session.user.isAdmin) return reply.redirect('/admin', 303);
    if (kind === 'admin' && !session.user.isAdmin) {
      return sendPage(reply, { title: 'Not allowed', session, error: 'The admin console is for administrators.', body: html`` }, 403);
    }
    if (request.method === 'POST' && !sameToken(session.csrfToken, field(request.body, '_csrf'))) {
      request.log.warn({ action: 'csrf_refused', user_id: session.user.id }, 'form refused: CSRF token missing or wrong');
      return sendPage(reply, { title: 'Form expired', session, error: 'This form expired. Reload the page and try again.', body: html`` }, 403);
    }
    request.webSession = session;
    request.log = reply.log = request.log.child({ user_id: session.user.id, account_id: session.account.id });
  };
}
