import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { BATCH_BODY_LIMIT } from '../routes/batches.js';
import { field, type Form } from './forms.js';
import { html } from './html.js';
import { sendPage } from './layout.js';
import { loadSession, sameToken } from './session.js';

/**
 * The most body a page's answer waits for before its connection is closed: the largest form the pages
 * take (the orders upload).
 */
const DRAIN_LIMIT = BATCH_BODY_LIMIT;

/**
 * What becomes of a body the page answers before reading it whole (no session, a form past a
 * limit). It is never parsed. One of at most `DRAIN_LIMIT` declared bytes is read to its end and
 * thrown away, so that the connection can carry the client's next request: a browser still sending
 * it when the answer comes must be let finish, as closing then resets the connection and the
 * browser shows a connection error instead of the answer (RFC 9112 §9.6). A larger body, or one of
 * unknown length, ends the connection instead (`Connection: close`, as Fastify does itself for a body
 * over its limit): Node stops reading once the answer is out.
 */
export function settleUnreadBody(request: FastifyRequest, reply: FastifyReply): void {
  if (request.method === 'GET' || request.method === 'HEAD' || request.raw.complete) return;
  const declared = request.headers['content-length'];
  if (request.headers['transfer-encoding'] === undefined && declared !== undefined && Number(declared) <= DRAIN_LIMIT) {
    // A body the reader stopped reading part way (past a limit) is paused: let it flow to nowhere.
    request.raw.resume();
    // Fastify closes after a body it refused for its length; read to its end, it need not.
    if (reply.hasHeader('connection')) reply.removeHeader('connection');
    return;
  }
  reply.header('connection', 'close');
}

/**
 * The guard of every signed-in page, in two steps. Before the body is read (onRequest): a session
 * (else the sign-in page), and the right kind of user (admins see the admin console instead of the
 * portal), so a visitor without a session never has a body parsed, whatever it holds. Once the
 * body is read (preHandler): the session's CSRF token on every POST.
 */
export function guardPages(app: FastifyInstance, ctx: AppContext, kind: 'customer' | 'admin'): void {
  app.addHook('onRequest', async (request, reply) => {
    const session = await loadSession(ctx, request);
    const refuse = () => {
      settleUnreadBody(request, reply);
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
