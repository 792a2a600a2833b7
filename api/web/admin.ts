import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { listAccessRequests, listAccounts, listRecentlyEnabled, type WebSession } from '../../db/index.js';
import { balanceToJson, formatAmount, formatDuration, reviewStatus } from '../../domain/index.js';
import { AdminError, adminCommands, findStuckShipments, parseAge } from '../../admin/index.js';
import type { AppContext } from '../context.js';
import { field, type Form } from './forms.js';
import { guardPages } from './guard.js';
import { html, when } from './html.js';
import { csrfField, noticeOf, sendPage } from './layout.js';

type Req = FastifyRequest<{ Body: Form; Querystring: Record<string, string>; Params: Record<string, string> }>;
const sessionOf = (request: FastifyRequest): WebSession => request.webSession!;
/** The accounts page shows this many, newest first; the others are found by id or name. */
const ACCOUNTS_SHOWN = 200;
/** The accounts page's search: from the query string, or from the form of an action taken on it. */
const searchOf = (request: Req) => (field(request.body, 'q') || (typeof request.query.q === 'string' ? request.query.q : '')).trim().slice(0, 200);
const afterAction = (request: Req) => {
  const q = searchOf(request);
  return q ? `q=${encodeURIComponent(q)}&` : '';
};

export const adminPages =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const admin = adminCommands(ctx.db, ctx.now);
    guardPages(app, ctx, 'admin');

    // ---------- access requests (spec §1: enabled after review, aimed at one working day) ----------
    app.get('/admin', async (request: Req, reply) => {
      const s = sessionOf(request);
      const now = ctx.now();
      const waiting = await listAccessRequests(ctx.db);
      const recent = await listRecentlyEnabled(ctx.db);
      const body = html`<section aria-labelledby="waiting-h"><h2 id="waiting-h">Waiting for review</h2>${
        waiting.length
          ? html`<table><thead><tr><th>Account</th><th>Funding</th><th>Requested</th><th>Review time</th><th>Due</th><th></th></tr></thead><tbody>
${waiting.map((a) => {
  const r = reviewStatus(a.apiAccessRequestedAt!, null, now);
  return html`<tr data-account-id="${a.id}"><td>${a.name}<br><code>${a.id}</code></td><td>${a.fundingSource}</td><td>${when(a.apiAccessRequestedAt)}</td>
<td>${r.text} <span class="badge ${r.withinAim ? 'ok' : 'bad'}">${r.withinAim ? 'within aim' : 'overdue'}</span></td><td>${when(r.dueAt)}</td>
<td><form class="inline" method="post" action="/admin/accounts/${a.id}/enable-api">${csrfField(s)}<button type="submit" aria-label="Enable API access for ${a.name}">Enable API access</button></form></td></tr>`;
})}</tbody></table>`
          : html`<p class="muted">No requests are waiting.</p>`
      }</section>
<section aria-labelledby="recent-h"><h2 id="recent-h">Recently enabled</h2>${
        recent.length
          ? html`<table><thead><tr><th>Account</th><th>Requested</th><th>Enabled</th><th>Review time</th></tr></thead><tbody>
${recent.map((a) => {
  const r = reviewStatus(a.apiAccessRequestedAt!, a.apiEnabledAt, now);
  return html`<tr><td>${a.name}<br><code>${a.id}</code></td><td>${when(a.apiAccessRequestedAt)}</td><td>${when(a.apiEnabledAt)}</td>
<td>${r.text} <span class="badge ${r.withinAim ? 'ok' : 'bad'}">${r.withinAim ? 'within aim' : 'over aim'}</span></td></tr>`;
})}</tbody></table>`
          : html`<p class="muted">None yet.</p>`
      }</section>`;
      return sendPage(reply, { title: 'Access requests', session: s, active: 'requests', notice: noticeOf(request.query), body });
    });

    app.post('/admin/accounts/:id/enable-api', async (request: Req, reply) => {
      try {
        await admin.enableApi(request.params.id);
      } catch (err) {
        if (!(err instanceof AdminError)) throw err;
        return sendPage(reply, { title: 'Access requests', session: sessionOf(request), error: err.message, body: html`<p><a href="/admin">Back</a></p>` }, 404);
      }
      request.log.info({ action: 'api_enabled', target_account_id: request.params.id }, 'admin: API access enabled');
      return reply.redirect('/admin?notice=api_enabled', 303);
    });

    // ---------- accounts: funding source, credit limit, top up ----------
    async function accountsPage(request: Req, reply: FastifyReply, o: { error?: string; status?: number } = {}) {
      const s = sessionOf(request);
      const q = searchOf(request);
      const accounts = await listAccounts(ctx.db, ACCOUNTS_SHOWN, q || undefined);
      // The forms carry the search, so the page after an action still shows the account changed.
      const keep = q ? html`<input type="hidden" name="q" value="${q}">` : '';
      const body = html`<section aria-labelledby="find-h"><h2 id="find-h">Find an account</h2>
<form method="get" action="/admin/accounts"><label for="q">Account id or part of its name</label>
<input id="q" name="q" type="search" value="${q}"> <button type="submit">Find</button>${q ? html` <a href="/admin/accounts">Show all</a>` : ''}</form></section>
<section aria-labelledby="accounts-h"><h2 id="accounts-h">${
        q ? `Accounts matching “${q}”` : accounts.length === ACCOUNTS_SHOWN ? `The newest ${ACCOUNTS_SHOWN} accounts` : 'Accounts'
      }</h2>${accounts.length ? '' : html`<p class="muted">No account matches.</p>`}
<table><thead><tr><th>Account</th><th>Funding</th><th>Available</th><th>Pending</th><th>Credit limit</th><th>API</th><th>Change</th></tr></thead><tbody>
${accounts.map((a) => {
  const b = balanceToJson(a, true);
  const change =
    a.fundingSource === 'wallet'
      ? html`<form class="inline" method="post" action="/admin/accounts/${a.id}/topup">${csrfField(s)}${keep}<label for="topup-${a.id}">Top up (${a.currency})</label>
<input id="topup-${a.id}" name="amount" type="text" inputmode="decimal" placeholder="100.00" required> <button type="submit">Top up</button></form>`
      : a.fundingSource === 'credit_line'
        ? html`<form class="inline" method="post" action="/admin/accounts/${a.id}/credit-limit">${csrfField(s)}${keep}<label for="limit-${a.id}">Credit limit (${a.currency})</label>
<input id="limit-${a.id}" name="credit_limit" type="text" inputmode="decimal" value="${a.creditLimit !== null ? formatAmount(a.creditLimit) : ''}" required> <button type="submit">Save</button></form>`
        : html`<span class="muted">card: nothing to set</span>`;
  return html`<tr data-account-id="${a.id}"><td>${a.name}<br><code>${a.id}</code></td><td>${a.fundingSource}</td><td>${b.available ?? '—'} ${a.currency}</td><td>${b.pending}</td>
<td>${b.credit_limit ?? '—'}</td><td>${a.apiEnabled ? html`<span class="badge ok">enabled</span>` : a.apiAccessRequestedAt ? html`<span class="badge">requested</span>` : html`<span class="muted">off</span>`}</td><td>${change}</td></tr>`;
})}</tbody></table></section>`;
      return sendPage(reply, { title: 'Accounts', session: s, active: 'accounts', notice: noticeOf(request.query), error: o.error, body }, o.status);
    }

    app.get('/admin/accounts', (request: Req, reply) => accountsPage(request, reply));

    app.post('/admin/accounts/:id/topup', async (request: Req, reply) => {
      const amount = field(request.body, 'amount').trim();
      try {
        await admin.topUp(request.params.id, amount);
      } catch (err) {
        if (!(err instanceof AdminError)) throw err;
        return accountsPage(request, reply, { error: err.message, status: 422 });
      }
      request.log.info({ action: 'wallet_topped_up', target_account_id: request.params.id, amount }, 'admin: wallet topped up');
      return reply.redirect(`/admin/accounts?${afterAction(request)}notice=topped_up`, 303);
    });

    app.post('/admin/accounts/:id/credit-limit', async (request: Req, reply) => {
      const limit = field(request.body, 'credit_limit').trim();
      try {
        await admin.setAccount(request.params.id, { creditLimit: limit });
      } catch (err) {
        if (!(err instanceof AdminError)) throw err;
        return accountsPage(request, reply, { error: err.message.replace(/--([a-z-]+)/g, '$1'), status: 422 });
      }
      request.log.info({ action: 'credit_limit_set', target_account_id: request.params.id, credit_limit: limit }, 'admin: credit limit set');
      return reply.redirect(`/admin/accounts?${afterAction(request)}notice=credit_limit_saved`, 303);
    });

    // ---------- stuck shipments: the list of `npm run ops -- stuck` ----------
    app.get('/admin/stuck', async (request: Req, reply) => {
      const s = sessionOf(request);
      const olderThan = (request.query.older_than ?? '10m').trim();
      const ms = parseAge(olderThan);
      if (ms === null) {
        return sendPage(reply, { title: 'Stuck shipments', session: s, active: 'stuck', error: 'Age must look like 90s, 10m, 2h or 1d.', body: html`<p><a href="/admin/stuck">Back</a></p>` }, 422);
      }
      const stuck = await findStuckShipments(ctx.temporal, {
        olderThanMs: ms,
        now: ctx.now(),
        uiUrl: ctx.config.temporalUiUrl,
        namespace: ctx.config.temporalNamespace,
      });
      const body = html`<section><form method="get" action="/admin/stuck"><label for="older_than">Under way for longer than</label>
<input id="older_than" name="older_than" type="text" value="${olderThan}"> <button type="submit">Show</button></form></section>
<section aria-labelledby="stuck-h"><h2 id="stuck-h">${stuck.length} stuck shipment${stuck.length === 1 ? '' : 's'}</h2>${
        stuck.length
          ? html`<table><thead><tr><th>Shipment</th><th>Status</th><th>Account</th><th>Carrier</th><th>Waiting</th><th>Waiting on</th><th>Temporal UI</th></tr></thead><tbody>
${stuck.map(
  (x) => html`<tr><td><code>${x.shipment_id}</code>${x.reference ? html`<br>${x.reference}` : ''}</td><td>${x.status}</td><td><code>${x.account_id ?? ''}</code>${x.livemode === false ? ' (sandbox)' : ''}</td><td>${x.carrier ?? ''}</td>
<td>${formatDuration(ctx.now().getTime() - new Date(x.waiting_since).getTime())}<br><span class="muted">since ${when(new Date(x.waiting_since))}</span></td>
<td>${x.details ?? ''}${x.pending_activities.map(
    (p) => html`<br>${p.activity} on ${p.task_queue ?? '?'}, attempt ${p.attempt}${p.last_failure ? html`, last error: ${p.last_failure}` : ''}`,
  )}</td><td><a href="${x.ui_url}" rel="noopener" target="_blank">Open workflow</a></td></tr>`,
)}</tbody></table>`
          : html`<p class="muted">Nothing has been under way that long.</p>`
      }</section>`;
      return sendPage(reply, { title: 'Stuck shipments', session: s, active: 'stuck', body });
    });
  };
