/**
 * The customer portal (`/portal`) and the admin console (`/admin`): server-rendered pages served by
 * the API process, calling the same domain and database code as the API and the admin command.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { ApiError } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { FAVICON, SCRIPT, STYLESHEET } from './assets.js';
import { html } from './html.js';
import { sendPage } from './layout.js';
import { adminPages } from './admin.js';
import { portalPages } from './portal.js';
import { portalWebhookPages } from './portal-webhooks.js';
import { portalBatchPages } from './portal-batches.js';
import { portalDeskPages } from './portal-desk.js';
import { portalShipmentPages } from './portal-shipments.js';
import { portalShipmentActions } from './portal-shipment-actions.js';
import { portalAddressPages } from './portal-addresses.js';
import { field, type Form } from './forms.js';
import { settleUnreadBody } from './guard.js';
import { formRefusal } from './uploads.js';
import { endSession, loadSession, LOGIN_WINDOW_MS, loginCsrf, loginCsrfMatches, sameToken, signIn, startSession } from './session.js';

// Pages load only our own script and stylesheet, post forms only to us, and are never framed.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The headers of every page: our own script and stylesheet only, never framed, nothing sniffed. */
function pageHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CSP);
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
}

/** An address under /portal or /admin: a person's browser, so a page answers it, not a JSON problem. */
export const isPagePath = (url: string) => /^\/(portal|admin)(\/|\?|$)/.test(url);

/** The 404 of a mistyped page address (the API's own paths keep their JSON problem). */
export function pageNotFound(reply: FastifyReply): FastifyReply {
  pageHeaders(reply);
  settleUnreadBody(reply.request, reply);
  return sendPage(reply, { title: 'Not found', error: 'There is no such page.', body: html`<p><a href="/portal">Back to the start</a></p>` }, 404);
}

export const webRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    // Pages are not part of the API: kept out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    // Forms post urlencoded bodies, read in one pass (fast-querystring); registered in this plugin
    // only, so the API still answers 415 to a form.
    await app.register(formbody);
    app.addHook('onSend', async (_request, reply) => pageHeaders(reply));
    app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
      // A form the framework could not read (too large, wrong type) keeps its 4xx status; nothing
      // about a fault on our side is shown beyond the request id.
      const given = error instanceof ApiError ? error.status : (error.statusCode ?? 500);
      const status = given >= 400 && given < 500 ? given : 500;
      if (status >= 500) request.log.error({ err: error }, 'page failed');
      const retryAfter = error instanceof ApiError ? error.extra.headers?.['retry-after'] : undefined;
      if (retryAfter) reply.header('retry-after', retryAfter);
      // Refused before its body was read whole (too large, too many fields): the rest is not parsed.
      settleUnreadBody(request, reply);
      const message =
        status >= 500
          ? `Something went wrong on our side (request ${request.id}).`
          : status === 429
            ? `Too many requests. Wait ${retryAfter ?? 'a few'} seconds and try again.`
            : (formRefusal(error, request.routeOptions.bodyLimit) ?? 'The request could not be read. Go back and try again.');
      return sendPage(reply, { title: 'Error', error: message, body: html`<p><a href="/portal">Back to the start</a></p>` }, status);
    });

    const asset = (path: string, type: string, body: string) =>
      app.get(path, async (_req, reply) => reply.header('content-type', type).header('cache-control', 'public, max-age=300').send(body));
    asset('/portal/assets/app.css', 'text/css; charset=utf-8', STYLESHEET);
    asset('/portal/assets/app.js', 'text/javascript; charset=utf-8', SCRIPT);
    asset('/portal/assets/favicon.svg', 'image/svg+xml', FAVICON);

    // `/portal/` and `/admin/` are the same pages as `/portal` and `/admin` (as `/docs/` is `/docs`):
    // a redirect, not a 404. Only these two; the JSON API keeps one spelling of each path.
    for (const page of ['/portal', '/admin']) {
      app.get(`${page}/`, async (request, reply) => {
        const at = request.url.indexOf('?');
        return reply.redirect(`${page}${at < 0 ? '' : request.url.slice(at)}`, 301);
      });
    }

    registerSignIn(app, ctx);
    await app.register(portalPages(ctx));
    await app.register(portalWebhookPages(ctx));
    await app.register(portalBatchPages(ctx));
    await app.register(portalDeskPages(ctx));
    await app.register(portalShipmentPages(ctx));
    await app.register(portalShipmentActions(ctx));
    await app.register(portalAddressPages(ctx));
    await app.register(adminPages(ctx));
  };

function loginPage(request: FastifyRequest, reply: FastifyReply, ctx: AppContext, o: { email?: string; error?: string }, status = 200) {
  const csrf = loginCsrf(ctx, request, reply);
  return sendPage(
    reply,
    {
      title: 'Sign in',
      error: o.error,
      body: html`<section><form method="post" action="/portal/login">
  <input type="hidden" name="_csrf" value="${csrf}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required autofocus value="${o.email ?? ''}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <p><button type="submit">Sign in</button></p>
</form></section>`,
    },
    status,
  );
}

/**
 * Signing in and out are the forms anyone may post, without a session, so what they may make the
 * parser read is kept small: a token, an email (at most 254 characters) and a password (at most
 * 200), under 3 KiB even with every character percent-encoded as UTF-8.
 */
const SIGN_IN_BODY_LIMIT = 8 * 1024;

function registerSignIn(app: FastifyInstance, ctx: AppContext) {
  app.get('/portal/login', async (request, reply) => {
    const session = await loadSession(ctx, request);
    if (session) return reply.redirect(session.user.isAdmin ? '/admin' : '/portal', 303);
    return loginPage(request, reply, ctx, {});
  });

  app.post<{ Body: Form }>('/portal/login', { bodyLimit: SIGN_IN_BODY_LIMIT }, async (request, reply) => {
    const email = field(request.body, 'email');
    if (!loginCsrfMatches(request, field(request.body, '_csrf'))) {
      return loginPage(request, reply, ctx, { email, error: 'The sign-in form expired. Please sign in again.' }, 403);
    }
    const ip = request.ip;
    const result = await signIn(ctx, { email, password: field(request.body, 'password'), ip });
    if (!result.ok) {
      request.log.info({ action: 'sign_in', outcome: result.reason }, 'portal sign-in refused');
      if (result.reason === 'invalid') return loginPage(request, reply, ctx, { email, error: 'Email or password is not right.' }, 401);
      // Retry-After, as on the API's 429: the throttling window's length, always long enough to wait.
      reply.header('retry-after', String(LOGIN_WINDOW_MS / 1000));
      return loginPage(request, reply, ctx, { email, error: 'Too many failed sign-ins. Wait 15 minutes and try again.' }, 429);
    }
    await startSession(ctx, reply, result.user);
    request.log.info({ action: 'sign_in', user_id: result.user.id, account_id: result.user.accountId }, 'portal sign-in');
    return reply.redirect(result.user.isAdmin ? '/admin' : '/portal', 303);
  });

  app.post<{ Body: Form }>('/portal/logout', { bodyLimit: SIGN_IN_BODY_LIMIT }, async (request, reply) => {
    const session = await loadSession(ctx, request);
    if (session && sameToken(session.csrfToken, field(request.body, '_csrf'))) {
      await endSession(ctx, request, reply);
      request.log.info({ action: 'sign_out', user_id: session.user.id }, 'portal sign-out');
    }
    return reply.redirect('/portal/login', 303);
  });
}

