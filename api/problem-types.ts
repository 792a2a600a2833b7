import type { FastifyPluginAsync } from 'fastify';
import { ApiError, CODE, ERRORS, isErrorCode, type ErrorCode } from '../domain/index.js';
import { problemType } from './problem.js';
import { html } from './web/html.js';

function page(title: string, body: ReturnType<typeof html>) {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}<p><a href="/docs">API reference</a> · <a href="/api/v1/problems">every problem type</a></p></body></html>`.text;
}

const code = (text: string) => html`${text.split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : part))}`;

/**
 * The pages the problem `type` URIs resolve to: `/api/v1/problems/<code>` (HTML, or JSON when asked
 * for it) and `/api/v1/problems`, the list. Public, like /docs.
 */
export const problemTypeRoutes = (): FastifyPluginAsync => async (app) => {
  app.get('/problems', { schema: { hide: true } }, async (_request, reply) => {
    const rows = (Object.keys(ERRORS) as ErrorCode[]).map(
      (c) => html`<tr><td>${ERRORS[c].status}</td><td><a href="${problemType(c)}"><code>${c}</code></a></td><td>${code(ERRORS[c].when)}</td></tr>`,
    );
    return reply
      .type('text/html; charset=utf-8')
      .send(page('Problem types', html`<h1>Problem types</h1><table><tr><th>status</th><th>code</th><th>when</th></tr>${rows}</table>`));
  });
  app.get<{ Params: { code: string } }>('/problems/:code', { schema: { hide: true } }, async (request, reply) => {
    const c = request.params.code;
    if (!isErrorCode(c)) throw new ApiError(CODE.not_found, `No problem type ${c}.`);
    const { status, title, when, then } = ERRORS[c];
    const accept = request.headers.accept ?? '';
    if (/application\/(problem\+)?json/.test(accept) && !accept.includes('text/html')) {
      return reply.send({ type: problemType(c), title, status, code: c, when, then });
    }
    return reply
      .type('text/html; charset=utf-8')
      .send(page(`${title} (${status} ${c})`, html`<h1>${title}</h1><p>HTTP ${status}, <code>"code": "${c}"</code></p><h2>When</h2><p>${code(when)}</p><h2>What to do</h2><p>${code(then)}</p>`));
  });
};
