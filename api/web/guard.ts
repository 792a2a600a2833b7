import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { field, type Form } from './forms.js';
import { html } from './html.js';
import { sendPage } from './layout.js';
import { loadSession, sameToken } from './session.js';

/**
 * Whether the request declares a body (RFC 9112 §6.3) that has not arrived whole yet: answering now
 * leaves the rest of it on the wire.
 */
function bodyUnread(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  const declared = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  return declared && !request.raw.complete;
}

/**
 * An answer given before the body was read ends the connection. Node would otherwise read and throw
 * away the whole body (2 MiB for an upload) so that the connection can carry the next request; with
 * `Connection: close` it stops reading once the answer is out, and a keep-alive client knows to open
 * a new connection for its next request (as Fastify does itself when it refuses a body).
 */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (bodyUnread(request)) reply.header('connection', 'close');
}

/**
 * The guard of every signed-in page, in two steps. Before the body is read (onRequest): a session
 * (else the sign-in page), and the right kind of user (admins see the admin console instead of the
 * portal), so a visitor without a session costs nothing but the headers, whatever the body is. Once
 * the body is read (preHandler): the session's CSRF token on every POST.
 */
export function guardPages(app: FastifyInstance, ctx: AppContext, kind: 'customer' | 'admin'): void {
  app.addHook('onRequest', async (request, reply) => {
    const session = await loadSession(ctx, request);
    const refuse = () => {
      closeIfBodyUnread(request, reply);
      return reply;
    };
    if (!session) return refuse().redirect('/portal/login', 303);
    if (kind === 'customer' && session.user.isAdmin) return refuse().redirect('/admin', 303);
    if (kind === 'admin' && !session.user.isAdmin) {
      return sendPage(refuse(), { title: 'Not allowed', session, error: 'The admin console is for administrators.', body: html`` }, 403);
    }
    request.webSession = session;
    request.log = reply.log = request.log.child({ user_id: session.user.id, account_id: session.account.id });
  });
  app.addHook('preHandler', async (request: FastifyRequest<{ Body?: Form }>, reply) => {
    const session = request.webSession!;
    if (request.method === 'POST' && !sameToken(session.csrfToken, field(request.body, '_csrf'))) {
      request.log.warn({ action: 'csrf_refused', user_id: session.user.id }, 'form refused: CSRF token missing or wrong');
      return sendPage(reply, { title: 'Form expired', session, error: 'This form expired. Reload the page and try again.', body: html`` }, 403);
    }
  });
}
