import type { FastifyReply } from 'fastify';
import type { WebSession } from '../../db/index.js';
import { html, type Html } from './html.js';

export type Mode = 'test' | 'live';
export const modeOf = (value: unknown): Mode => (value === 'live' ? 'live' : 'test');
export const modeName = (m: Mode) => (m === 'live' ? 'Live' : 'Sandbox');

interface NavItem {
  href: string;
  label: string;
  id: string;
}

const PORTAL_NAV: NavItem[] = [
  { href: '/portal', label: 'Overview', id: 'overview' },
  { href: '/portal/shipments/new', label: 'New shipment', id: 'new' },
  { href: '/portal/shipments', label: 'Shipments', id: 'shipments' },
  { href: '/portal/tracking', label: 'Tracking', id: 'tracking' },
  { href: '/portal/addresses', label: 'Addresses', id: 'addresses' },
  { href: '/portal/batches', label: 'Batches', id: 'batches' },
  { href: '/portal/keys', label: 'API keys', id: 'keys' },
  { href: '/portal/webhooks', label: 'Webhooks', id: 'webhooks' },
];
const ADMIN_NAV: NavItem[] = [
  { href: '/admin', label: 'Access requests', id: 'requests' },
  { href: '/admin/accounts', label: 'Accounts', id: 'accounts' },
  { href: '/admin/stuck', label: 'Stuck shipments', id: 'stuck' },
];

export interface PageOptions {
  title: string;
  session?: WebSession;
  active?: string;
  notice?: string | null;
  error?: string | null;
  body: Html;
}

/** The frame of every page: skip link, header with navigation and sign-out, one <main>. */
export function layout(o: PageOptions): string {
  const s = o.session;
  const nav = s ? (s.user.isAdmin ? ADMIN_NAV : PORTAL_NAV) : [];
  const brand = s?.user.isAdmin ? 'Parcel shipping · Admin console' : 'Parcel shipping · Customer portal';
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · ${brand}</title>
<link rel="icon" href="/portal/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/portal/assets/app.css">
<script src="/portal/assets/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <span class="brand">${brand}</span>
  ${
    s
      ? html`<nav aria-label="Main">${nav.map(
          (n) => html`<a href="${n.href}"${n.id === o.active ? html` aria-current="page"` : ''}>${n.label}</a>`,
        )}</nav>
  <span class="muted">${s.user.email} · ${s.account.name}</span>
  <form method="post" action="/portal/logout"><input type="hidden" name="_csrf" value="${s.csrfToken}"><button class="secondary" type="submit">Sign out</button></form>`
      : ''
  }
</header>
<main id="main" tabindex="-1">
<h1>${o.title}</h1>
${o.notice ? html`<p class="notice" role="status">${o.notice}</p>` : ''}
${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''}
${o.body}
</main>
</body>
</html>`}`;
}

/** Sends a page; pages hold one-time secrets and personal data, so nothing is cached. */
export function sendPage(reply: FastifyReply, o: PageOptions, status = 200): FastifyReply {
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(layout(o));
}

/** The CSRF field every form of a signed-in page carries. */
export const csrfField = (s: WebSession) => html`<input type="hidden" name="_csrf" value="${s.csrfToken}">`;

/** Status messages after a redirect come from this list only, never from the query string itself. */
export const NOTICES: Record<string, string> = {
  access_requested: 'API access requested. An administrator reviews it, usually within one working day.',
  threshold_saved: 'Low-balance threshold saved.',
  key_revoked: 'Key revoked. Requests with it are refused from now on.',
  endpoint_deleted: 'Webhook endpoint deleted. Nothing more is sent to it.',
  api_enabled: 'API access enabled.',
  topped_up: 'Wallet topped up.',
  credit_limit_saved: 'Credit limit saved.',
  batch_started: 'Every line of the file was accepted: the batch is buying its labels.',
  scan_form_created: 'SCAN form created.',
  purchased: 'Label bought.',
  purchase_pending: 'The purchase is still under way at the carrier: this page shows the label once it is bought.',
  return_bought: 'Return label bought.',
  voided: 'Label voided: the carrier cancelled it and the charge was given back.',
  voiding: 'The void is under way at the carrier: the charge is given back once it is done.',
  scan_recorded: 'Sandbox scan sent: it shows on the timeline once tracking has recorded it (reload in a moment).',
  address_saved: 'Address added to the address book.',
  address_exists: 'That address was already in the address book.',
  address_updated: 'Address saved.',
  address_deleted: 'Address deleted.',
};
export const noticeOf = (q: unknown) => NOTICES[String((q as { notice?: unknown })?.notice ?? '')] ?? null;
