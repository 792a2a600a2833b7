import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { findAccount, findOwnShipment, listApiKeys, listShipments } from '../../db/index.js';
import { balanceToJson, formatAmount, hasLabel, LABEL_FORMAT_LIST, reviewDueAt, SCOPES } from '../../domain/index.js';
import { AdminError, adminCommands } from '../../admin/index.js';
import type { AppContext } from '../context.js';
import { LABEL_FILES, signedFileLink } from '../label-links.js';
import { messageOf, modeSwitch, ownerOf, sessionOf, type Req } from './common.js';
import { field, fields, type Form } from './forms.js';
import { guardPages } from './guard.js';
import { html, when } from './html.js';
import { csrfField, modeName, modeOf, noticeOf, sendPage } from './layout.js';
import { shipmentPath, statusBadge, td } from './shipment-page.js';

/** The customer portal: overview (API access, balance, threshold, shipments) and API keys. */
export const portalPages =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const admin = adminCommands(ctx.db, ctx.now);
    guardPages(app, ctx, 'customer');

    // ---------- overview: API access, balance and threshold, recent shipments ----------
    async function overview(request: Req, reply: FastifyReply, o: { error?: string | null; status?: number } = {}) {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const account = (await findAccount(ctx.db, s.account.id))!;
      const balance = balanceToJson(account, mode === 'live');
      const { rows } = await listShipments(ctx.db, { ...ownerOf(s, mode), limit: 20 });
      const access = account.apiEnabled
        ? html`<p><span class="badge ok">Enabled</span> API access is enabled${account.apiEnabledAt ? html` since ${when(account.apiEnabledAt)}` : ''}. Create keys under <a href="/portal/keys">API keys</a>.</p>`
        : account.apiAccessRequestedAt
          ? html`<p><span class="badge">Under review</span> Requested ${when(account.apiAccessRequestedAt)}. An administrator reviews requests within one working day (by ${when(reviewDueAt(account.apiAccessRequestedAt))}).</p>`
          : html`<p>API access lets your systems quote, buy and track shipments. It is free and enabled by an administrator after a short review (aim: one working day).</p>
<form method="post" action="/portal/access-request">${csrfField(s)}<button type="submit">Request API access</button></form>`;
      const body = html`
<section aria-labelledby="access-h"><h2 id="access-h">API access</h2>${access}</section>
<section aria-labelledby="balance-h"><h2 id="balance-h">Balance</h2>
<table><tbody>
<tr><th scope="row">Funding source</th><td>${balance.funding_source}</td></tr>
<tr><th scope="row">Available</th><td>${balance.available ?? '—'} ${balance.currency}</td></tr>
<tr><th scope="row">Pending</th><td>${balance.pending} ${balance.currency}</td></tr>
<tr><th scope="row">Credit limit</th><td>${balance.credit_limit ?? '—'}</td></tr>
<tr><th scope="row">Low-balance threshold</th><td>${balance.low_balance_threshold ?? 'not set'}</td></tr>
</tbody></table>
${
  balance.funding_source === 'card'
    ? ''
    : html`<form method="post" action="/portal/threshold">${csrfField(s)}
<label for="threshold">Low-balance threshold (${balance.currency})</label>
<p class="hint" id="threshold-hint">A <code>wallet.low_balance</code> event is sent when the balance falls below it. Leave it empty for none.</p>
<input id="threshold" name="threshold" type="text" inputmode="decimal" aria-describedby="threshold-hint" placeholder="20.00" value="${balance.low_balance_threshold ?? ''}">
<button type="submit">Save threshold</button></form>`
}</section>
<section aria-labelledby="shipments-h"><h2 id="shipments-h">Recent shipments</h2>${modeSwitch('/portal', mode)}
${
  rows.length
    ? html`<table class="stack" id="recent-shipments"><thead><tr><th>Shipment</th><th>Reference</th><th>Service</th><th>Status</th><th>Tracking</th><th>Price</th><th>Created</th><th>Label</th></tr></thead><tbody>
${rows.map(
  (r) => html`<tr data-shipment-id="${r.id}">${td('Shipment', html`<a href="${shipmentPath(r.id, mode)}"><code>${r.id}</code></a>`)}${td('Reference', r.reference ?? '')}${td('Service', r.serviceName ?? r.serviceCode)}${td('Status', statusBadge(r.status))}
${td('Tracking', html`${r.trackingNumber ?? ''}${r.trackingStatus ? html` <span class="muted">(${r.trackingStatus})</span>` : ''}`)}
${td('Price', r.priceGross !== null ? `${formatAmount(r.priceGross)} ${r.currency}` : '')}${td('Created', when(r.createdAt))}
${td('Label', hasLabel(r.status) ? LABEL_FORMAT_LIST.map((f) => html`<a href="/portal/shipments/${r.id}/label/${f}?mode=${mode}">${f}</a> `) : '')}</tr>`,
)}</tbody></table>
<p><a href="/portal/shipments?mode=${mode}">All ${modeName(mode).toLowerCase()} shipments</a> · <a href="/portal/shipments/new?mode=${mode}">New shipment</a></p>`
    : html`<p class="muted">No ${modeName(mode).toLowerCase()} shipments yet. <a href="/portal/shipments/new?mode=${mode}">Buy a label</a>.</p>`
}</section>`;
      return sendPage(reply, { title: account.name, session: s, active: 'overview', notice: noticeOf(request.query), error: o.error, body }, o.status);
    }

    app.get('/portal', (request: Req, reply) => overview(request, reply));

    app.post('/portal/access-request', async (request: Req, reply) => {
      const s = sessionOf(request);
      const { api_enabled } = await admin.requestApiAccess(s.account.id);
      // A page left open after an administrator enabled access: nothing was requested, the overview says so.
      if (api_enabled) return reply.redirect('/portal', 303);
      request.log.info({ action: 'api_access_requested' }, 'portal: API access requested');
      return reply.redirect('/portal?notice=access_requested', 303);
    });

    app.post('/portal/threshold', async (request: Req, reply) => {
      const s = sessionOf(request);
      try {
        await admin.setAccount(s.account.id, { lowBalanceThreshold: field(request.body, 'threshold').trim() });
      } catch (err) {
        const message = messageOf(err);
        if (!message) throw err;
        return overview(request, reply, { error: message, status: 422 });
      }
      request.log.info({ action: 'low_balance_threshold_set' }, 'portal: low-balance threshold set');
      return reply.redirect('/portal?notice=threshold_saved', 303);
    });

    // A fresh signed link at each click, so a page left open never shows an expired one.
    app.get('/portal/shipments/:id/label/:format', async (request: Req, reply) => {
      const s = sessionOf(request);
      const { id, format } = request.params;
      const shipment = await findOwnShipment(ctx.db, ownerOf(s, modeOf(request.query.mode)), id);
      if (!shipment || !hasLabel(shipment.status) || !(LABEL_FORMAT_LIST as readonly string[]).includes(format)) {
        return sendPage(reply, { title: 'Label not available', session: s, error: 'There is no such label.', body: html`<p><a href="/portal">Back</a></p>` }, 404);
      }
      return reply.redirect(signedFileLink(ctx, LABEL_FILES, id, format).url, 303);
    });

    // ---------- API keys ----------
    async function keysPage(
      request: Req,
      reply: FastifyReply,
      o: { error?: string | null; created?: { id: string; key: string }; status?: number; refused?: Form } = {},
    ) {
      const s = sessionOf(request);
      // A refused form comes back as it was sent, so correcting one field cannot quietly turn a live key
      // with a few scopes into a sandbox key with every scope; a new form has every scope ticked.
      const sent = o.refused;
      const mode = sent ? field(sent, 'mode') : 'test';
      const ticked = sent ? fields(sent, 'scopes') : [...SCOPES];
      const account = (await findAccount(ctx.db, s.account.id))!;
      const keys = await listApiKeys(ctx.db, s.account.id);
      const now = ctx.now();
      const created = o.created
        ? html`<section aria-labelledby="new-key-h"><h2 id="new-key-h">Your new key</h2>
<p>Copy it now: it is shown only once and cannot be recovered.</p>
<p class="secret" id="new-key">${o.created.key}</p>
<p><button type="button" class="secondary" data-copy="new-key" hidden>Copy key</button></p></section>`
        : '';
      const form = account.apiEnabled
        ? html`<section aria-labelledby="create-key-h"><h2 id="create-key-h">Create a key</h2>
<form method="post" action="/portal/keys">${csrfField(s)}
<label for="mode">Mode</label>
<select id="mode" name="mode"><option value="test">Sandbox (svc_test_…)</option><option value="live"${mode === 'live' ? html` selected` : ''}>Live (svc_live_…)</option></select>
<fieldset><legend>Scopes</legend>${SCOPES.map(
            (sc) => html`<label><input type="checkbox" name="scopes" value="${sc}"${ticked.includes(sc) ? html` checked` : ''}> ${sc}</label>`,
          )}</fieldset>
<label for="expires_at">Expires at (UTC, optional)</label>
<input id="expires_at" name="expires_at" type="datetime-local" value="${sent ? field(sent, 'expires_at') : ''}">
<label for="allow_ip">IP allowlist (CIDR blocks, comma separated, optional)</label>
<input id="allow_ip" name="allow_ip" type="text" placeholder="203.0.113.0/24, 2001:db8::/32" value="${sent ? field(sent, 'allow_ip') : ''}">
<label for="rate_limit">Rate limit (requests/seconds)</label>
<input id="rate_limit" name="rate_limit" type="text" value="${sent ? field(sent, 'rate_limit') : '100/10'}">
<p><button type="submit">Create key</button></p></form></section>`
        : html`<section><p>Keys can be created once an administrator has enabled API access. <a href="/portal">Request API access</a> on the overview.</p></section>`;
      const list = html`<section aria-labelledby="keys-h"><h2 id="keys-h">Keys</h2>${
        keys.length
          ? html`<table class="stack"><thead><tr><th>Key</th><th>Mode</th><th>Scopes</th><th>Last used</th><th>Expires</th><th>Status</th><th></th></tr></thead><tbody>
${keys.map((k) => {
  const state = k.revokedAt ? 'revoked' : k.expiresAt && k.expiresAt <= now ? 'expired' : 'active';
  return html`<tr data-key-id="${k.id}">${td('Key', html`<code>${k.prefix ? `${k.prefix}…` : k.id}</code>`)}${td('Mode', k.livemode ? 'live' : 'sandbox')}
${td('Scopes', html`${k.scopes.length === SCOPES.length ? 'all' : k.scopes.join(', ')}${k.allowedIps?.length ? html`<br><span class="muted">from ${k.allowedIps.join(', ')}</span>` : ''}<br><span class="muted">${k.rateLimitCount}/${k.rateLimitSeconds} s</span>`)}
${td('Last used', when(k.lastUsedAt))}${td('Expires', when(k.expiresAt))}${td('Status', html`<span class="badge ${state === 'active' ? 'ok' : 'bad'}">${state}</span>`)}
${td(
    '',
    state === 'active'
      ? html`<form class="inline" method="post" action="/portal/keys/${k.id}/revoke">${csrfField(s)}<button class="danger" type="submit" aria-label="Revoke key ${k.prefix ?? k.id}">Revoke</button></form>`
      : '',
  )}</tr>`;
})}</tbody></table>`
          : html`<p class="muted">No keys yet.</p>`
      }</section>`;
      return sendPage(
        reply,
        { title: 'API keys', session: s, active: 'keys', notice: noticeOf(request.query), error: o.error, body: html`${created}${form}${list}` },
        o.status,
      );
    }

    app.get('/portal/keys', (request: Req, reply) => keysPage(request, reply));

    app.post('/portal/keys', async (request: Req, reply) => {
      const s = sessionOf(request);
      const b = request.body;
      const expires = field(b, 'expires_at').trim();
      const scopes = fields(b, 'scopes');
      let created: { id: string; key: string };
      try {
        if (!s.account.apiEnabled) throw new AdminError('API access is not enabled yet: request it on the overview page.');
        if (!scopes.length) throw new AdminError('choose at least one scope');
        created = await admin.createKey(s.account.id, {
          mode: field(b, 'mode'),
          scopes: scopes.join(','),
          // datetime-local has no zone; the form says UTC, as the command reads a time without an offset.
          expiresAt: expires || undefined,
          allowIp: field(b, 'allow_ip').trim() || undefined,
          rateLimit: field(b, 'rate_limit').trim() || undefined,
        });
      } catch (err) {
        const message = messageOf(err);
        if (!message) throw err;
        return keysPage(request, reply, { error: message, status: 422, refused: b });
      }
      request.log.info({ action: 'api_key_created', key_id: created.id }, 'portal: API key created');
      return keysPage(request, reply, { created });
    });

    app.post('/portal/keys/:id/revoke', async (request: Req, reply) => {
      const s = sessionOf(request);
      try {
        await admin.revokeKey(request.params.id, { accountId: s.account.id });
      } catch (err) {
        const message = messageOf(err);
        if (!message) throw err;
        return keysPage(request, reply, { error: message, status: 404 });
      }
      request.log.info({ action: 'api_key_revoked', key_id: request.params.id }, 'portal: API key revoked');
      return reply.redirect('/portal/keys?notice=key_revoked', 303);
    });
  };
