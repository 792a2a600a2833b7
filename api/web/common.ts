import type { FastifyRequest } from 'fastify';
import type { WebSession } from '../../db/index.js';
import { ApiError } from '../../domain/index.js';
import { AdminError } from '../../admin/index.js';
import type { Form } from './forms.js';
import { html, type Html } from './html.js';
import { modeName, type Mode } from './layout.js';

/** What a page's request holds: its form, its query and its path parameters, as text. */
export type PageRoute = { Body: Form; Querystring: Record<string, string>; Params: Record<string, string> };
export type Req = FastifyRequest<PageRoute>;

export const sessionOf = (request: FastifyRequest): WebSession => request.webSession!;
export const ownerOf = (s: WebSession, mode: Mode) => ({ accountId: s.account.id, livemode: mode === 'live' });
/** The signed-in user's account as a buyer in the mode the page shows: what the API's services take from a key. */
export const buyerOf = (s: WebSession, mode: Mode) => ({ account: s.account, livemode: mode === 'live', owner: ownerOf(s, mode) });
/** The message of a refusal from the shared rules, for the form that caused it. */
export const messageOf = (err: unknown): string | null => {
  if (err instanceof AdminError) return err.message.replace(/--([a-z-]+)/g, '$1');
  if (err instanceof ApiError) {
    const details = (err.extra.errors ?? []).map((e) => `${e.path || 'form'} ${e.message}`);
    return details.length ? details.join('; ') : err.message;
  }
  return null;
};

export function modeSwitch(path: string, mode: Mode): Html {
  return html`<p>Showing <strong>${modeName(mode)}</strong> data. <a href="${path}?mode=${mode === 'live' ? 'test' : 'live'}">Show ${modeName(
    mode === 'live' ? 'test' : 'live',
  )} data</a></p>`;
}
