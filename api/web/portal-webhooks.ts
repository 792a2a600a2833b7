import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { deleteWebhookEndpoint, findOwnWebhookEndpoint, listWebhookDeliveries, listWebhookEndpoints } from '../../db/index.js';
import { CODE, ApiError, EVENT_TYPES, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from '../../domain/index.js';
import { AdminError } from '../../admin/index.js';
import type { AppContext } from '../context.js';
import { fieldErrors } from '../problem.js';
import { createWebhookEndpoint, createEndpointSchema, type CreateEndpoint } from '../routes/webhooks.js';
import { createValidatorCompiler } from '../validation.js';
import { messageOf, modeSwitch, ownerOf, sessionOf, type Req } from './common.js';
import { field, fields } from './forms.js';
import { guardPages } from './guard.js';
import { html, when } from './html.js';
import { csrfField, modeName, modeOf, noticeOf, sendPage } from './layout.js';
import { td } from './shipment-page.js';

/** The portal's webhook endpoints: create (secret shown once), delete, and each one's delivery log. */
export const portalWebhookPages =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const validateEndpoint = createValidatorCompiler()({
      schema: createEndpointSchema(ctx.config.webhookAllowPrivate), method: 'POST', url: '/webhook_endpoints', httpPart: 'body' });
    guardPages(app, ctx, 'customer');

    // ---------- webhook endpoints ----------
    async function webhooksPage(
      request: Req,
      reply: FastifyReply,
      o: { error?: string | null; created?: { id: string; secret: string }; status?: number; refused?: { url: string; events?: string[] } } = {},
    ) {
      const s = sessionOf(request);
      // A refused form comes back as it was sent: correcting the URL must not quietly subscribe to every event.
      const sent = o.refused;
      const mode = modeOf(request.query.mode);
      const { rows } = await listWebhookEndpoints(ctx.db, { ...ownerOf(s, mode), limit: 100 });
      const created = o.created
        ? html`<section aria-labelledby="new-secret-h"><h2 id="new-secret-h">Signing secret of ${o.created.id}</h2>
<p>Copy it now: it is shown only once. Your receiver checks <code>X-SVC-Signature</code> with it.</p>
<p class="secret" id="new-secret">${o.created.secret}</p>
<p><button type="button" class="secondary" data-copy="new-secret" hidden>Copy secret</button></p></section>`
        : '';
      const body = html`${created}
<section aria-labelledby="create-we-h"><h2 id="create-we-h">Add an endpoint</h2>${modeSwitch('/portal/webhooks', mode)}
<form method="post" action="/portal/webhooks?mode=${mode}">${csrfField(s)}
<label for="url">URL</label>
<p class="hint" id="url-hint">An https URL on a public address.</p>
<input id="url" name="url" type="url" required aria-describedby="url-hint" placeholder="https://example.com/webhooks" value="${sent?.url ?? ''}">
<fieldset><legend>Events (none ticked: every event)</legend>${EVENT_TYPES.map(
        (t) => html`<label><input type="checkbox" name="events" value="${t}"${sent?.events?.includes(t) ? html` checked` : ''}> ${t}</label>`,
      )}</fieldset>
<p><button type="submit">Add endpoint</button></p></form></section>
<section aria-labelledby="we-h"><h2 id="we-h">${modeName(mode)} endpoints</h2>${
        rows.length
          ? html`<table class="stack"><thead><tr><th>Endpoint</th><th>URL</th><th>Events</th><th>Created</th><th></th></tr></thead><tbody>
${rows.map(
  (e) => html`<tr>${td('Endpoint', html`<a href="/portal/webhooks/${e.id}?mode=${mode}"><code>${e.id}</code></a>`)}${td('URL', e.url)}${td('Events', e.events ? e.events.join(', ') : 'all')}${td('Created', when(e.createdAt))}
${td('', html`<form class="inline" method="post" action="/portal/webhooks/${e.id}/delete?mode=${mode}">${csrfField(s)}<button class="danger" type="submit" aria-label="Delete endpoint ${e.url}">Delete</button></form>`)}</tr>`,
)}</tbody></table>`
          : html`<p class="muted">No endpoints yet.</p>`
      }</section>`;
      return sendPage(reply, { title: 'Webhooks', session: s, active: 'webhooks', notice: noticeOf(request.query), error: o.error, body }, o.status);
    }

    app.get('/portal/webhooks', (request: Req, reply) => webhooksPage(request, reply));

    app.post('/portal/webhooks', async (request: Req, reply) => {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const events = fields(request.body, 'events');
      const body = { url: field(request.body, 'url').trim(), ...(events.length ? { events } : {}) };
      let created: { id: string; secret: string };
      try {
        if (!s.account.apiEnabled) throw new AdminError('webhook endpoints can be added once API access is enabled');
        // The API's own schema and creation function: the same rules as POST /webhook_endpoints.
        if (!validateEndpoint(body)) {
          const errors = fieldErrors((validateEndpoint as unknown as { errors: never[] }).errors ?? [], 'body', body);
          throw new ApiError(CODE.validation_failed, 'The form has invalid fields.', { errors });
        }
        created = await createWebhookEndpoint(ctx, ownerOf(s, mode), body as CreateEndpoint);
      } catch (err) {
        const message = messageOf(err);
        if (!message) throw err;
        return webhooksPage(request, reply, { error: message, status: err instanceof ApiError ? err.status : 422, refused: body });
      }
      request.log.info({ action: 'webhook_endpoint_created', webhook_endpoint_id: created.id }, 'portal: webhook endpoint created');
      return webhooksPage(request, reply, { created });
    });

    app.post('/portal/webhooks/:id/delete', async (request: Req, reply) => {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const deleted = await deleteWebhookEndpoint(ctx.db, ownerOf(s, mode), request.params.id, ctx.now());
      if (!deleted) return webhooksPage(request, reply, { error: 'There is no such endpoint.', status: 404 });
      request.log.info({ action: 'webhook_endpoint_deleted', webhook_endpoint_id: request.params.id }, 'portal: webhook endpoint deleted');
      return reply.redirect(`/portal/webhooks?mode=${mode}&notice=endpoint_deleted`, 303);
    });

    app.get('/portal/webhooks/:id', async (request: Req, reply) => {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const endpoint = await findOwnWebhookEndpoint(ctx.db, ownerOf(s, mode), request.params.id);
      if (!endpoint) {
        return sendPage(reply, { title: 'Not found', session: s, active: 'webhooks', error: 'There is no such endpoint.', body: html`<p><a href="/portal/webhooks">Back</a></p>` }, 404);
      }
      const { rows } = await listWebhookDeliveries(ctx.db, { endpointId: endpoint.id, limit: 100 });
      // The next attempt follows the fixed schedule (spec §6) from the last failed one.
      const latest = new Map<string, number>();
      for (const r of rows) latest.set(r.eventId, Math.max(latest.get(r.eventId) ?? 0, r.attempt));
      const nextRetry = (r: (typeof rows)[number]) => {
        if (r.outcome !== 'failed' || latest.get(r.eventId) !== r.attempt) return html`—`;
        if (r.final || r.attempt >= WEBHOOK_MAX_ATTEMPTS) return html`<span class="badge bad">gave up</span>`;
        return when(new Date(r.attemptedAt.getTime() + WEBHOOK_RETRY_DELAYS_MS[r.attempt - 1]));
      };
      const body = html`<section><p><a href="/portal/webhooks?mode=${mode}">All endpoints</a></p>
<table><tbody><tr><th scope="row">URL</th><td>${endpoint.url}</td></tr><tr><th scope="row">Events</th><td>${endpoint.events ? endpoint.events.join(', ') : 'all'}</td></tr>
<tr><th scope="row">Mode</th><td>${modeName(mode)}</td></tr></tbody></table></section>
<section aria-labelledby="log-h"><h2 id="log-h">Delivery log</h2>${
        rows.length
          ? html`<table class="stack"><thead><tr><th>Event</th><th>Attempt</th><th>Status</th><th>HTTP</th><th>Attempted</th><th>Next retry</th></tr></thead><tbody>
${rows.map(
  (r) => html`<tr>${td('Event', html`<code>${r.eventId}</code>`)}${td('Attempt', `${r.attempt} of ${WEBHOOK_MAX_ATTEMPTS}`)}${td('Status', html`<span class="badge ${r.outcome === 'succeeded' ? 'ok' : 'bad'}">${r.outcome}</span>${r.error ? html`<br><span class="muted">${r.error}</span>` : ''}`)}
${td('HTTP', r.statusCode ?? '—')}${td('Attempted', when(r.attemptedAt))}${td('Next retry', nextRetry(r))}</tr>`,
)}</tbody></table>`
          : html`<p class="muted">Nothing delivered yet.</p>`
      }</section>`;
      return sendPage(reply, { title: `Endpoint ${endpoint.id}`, session: s, active: 'webhooks', body });
    });
  };

