import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { deleteOwnAddress, findOwnAddress, listAddresses, saveAddress, updateOwnAddress, type AddressRow } from '../../db/index.js';
import { ApiError, CODE, makeId } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { cursorId, encodeCursor } from '../pagination.js';
import { normalized } from '../routes/addresses.js';
import type { AddressInput } from '../schemas.js';
import { addressFieldset, addressLine, addressRefusal, addressValues, checkAddress, readAddress, useChecked, verificationPanel, type Verification } from './address-fields.js';
import { modeSwitch, ownerOf, sessionOf, type Req } from './common.js';
import { defaultAction, groupError, Problems } from './fields.js';
import { field, type Form } from './forms.js';
import { guardPages } from './guard.js';
import { html, when } from './html.js';
import { csrfField, modeName, modeOf, noticeOf, sendPage, type Mode } from './layout.js';
import { td } from './shipment-page.js';

const PAGE_SIZE = 20;
const PREFIX = 'addr';
const bookPath = (mode: Mode) => `/portal/addresses?mode=${mode}`;
const fieldOf = (path: string, message: string) => ({ field: path ? `${PREFIX}.${path}` : null, message });

interface Shown {
  form?: Form;
  problems?: Problems;
  check?: Verification;
  notice?: string | null;
  status?: number;
}

/**
 * The address book (`/portal/addresses`): the saved addresses of the mode the page shows, added,
 * edited and deleted by the API's own rules (`POST`, `PATCH` and `DELETE /addresses`), each form
 * with the "Check address" of `POST /addresses/verify`.
 */
export const portalAddressPages =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    guardPages(app, ctx, 'customer');

    /** The address form, for a new address (no `row`) or one being edited. */
    function addressForm(mode: Mode, s: ReturnType<typeof sessionOf>, o: Shown & { row?: AddressRow }): ReturnType<typeof html> {
      const problems = o.problems ?? new Problems();
      const check = groupError(problems, `${PREFIX}.check`, 'Address check');
      const action = o.row ? `/portal/addresses/${o.row.id}?mode=${mode}` : `/portal/addresses?mode=${mode}`;
      return html`<form method="post" action="${action}" novalidate>${csrfField(s)}${defaultAction('save', 'Save')}
${addressFieldset(problems, { prefix: PREFIX, legend: o.row ? 'Address' : 'New address', form: o.form })}
<div class="actions" id="${check.id}"><button class="secondary" type="submit" name="action" value="check">Check address</button>${check.error}
<button type="submit" name="action" value="save">${o.row ? 'Save changes' : 'Add to the address book'}</button></div>
${o.check ? verificationPanel(o.check, { action: 'use_checked' }) : ''}</form>`;
    }

    async function bookPage(request: Req, reply: FastifyReply, o: Shown = {}) {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const cursor = request.query.cursor ?? '';
      const before = cursor ? cursorId(cursor, 'adr') : undefined;
      const { rows, hasMore } = await listAddresses(ctx.db, { ...ownerOf(s, mode), before, limit: PAGE_SIZE });
      const problems = o.problems ?? new Problems();
      const form = addressForm(mode, s, { ...o, problems });
      const list = rows.length
        ? html`<table class="stack" id="addresses"><thead><tr><th>Address</th><th>Phone</th><th>Email</th><th>Added</th><th></th></tr></thead><tbody>${rows.map(
            (a) => html`<tr data-address-id="${a.id}">${td('Address', addressLine(a))}${td('Phone', a.phone ?? '')}${td('Email', a.email ?? '')}${td('Added', when(a.createdAt))}
${td('', html`<a href="/portal/addresses/${a.id}?mode=${mode}" aria-label="Edit ${a.name}, ${a.line1}">Edit</a>`)}</tr>`,
          )}</tbody></table>
${hasMore ? html`<p><a id="next-page" href="/portal/addresses?mode=${mode}&cursor=${encodeCursor(rows[rows.length - 1].id)}">Next page</a></p>` : ''}`
        : html`<p class="muted">No ${modeName(mode).toLowerCase()} addresses${cursor ? ' on this page' : ' yet'}.</p>`;
      const body = html`${problems.summary()}<section aria-labelledby="book-h"><h2 id="book-h">${modeName(mode)} address book</h2>${modeSwitch('/portal/addresses', mode)}${list}</section>
<section aria-labelledby="add-h"><h2 id="add-h">Add an address</h2>${form}</section>`;
      return sendPage(reply, { title: 'Address book', session: s, active: 'addresses', notice: o.notice ?? noticeOf(request.query), body }, o.status ?? (problems.any ? 422 : 200));
    }

    async function editPage(request: Req, reply: FastifyReply, row: AddressRow, o: Shown = {}) {
      const s = sessionOf(request);
      const mode: Mode = row.livemode ? 'live' : 'test';
      const problems = o.problems ?? new Problems();
      const form = addressForm(mode, s, { ...o, form: o.form ?? addressValues(row, PREFIX), problems, row });
      const body = html`${problems.summary()}<p><a href="${bookPath(mode)}">All addresses</a></p><section aria-labelledby="edit-h"><h2 id="edit-h">Edit <code>${row.id}</code></h2>${form}</section>
<section aria-labelledby="delete-h"><h2 id="delete-h">Delete</h2><p>Shipments already bought keep their addresses.</p>
<form method="post" action="/portal/addresses/${row.id}/delete?mode=${mode}">${csrfField(s)}<button class="danger" type="submit">Delete this address</button></form></section>`;
      return sendPage(reply, { title: 'Edit address', session: s, active: 'addresses', notice: o.notice, body }, o.status ?? (problems.any ? 422 : 200));
    }

    /** The buttons every address form shares: check, use the checked address; `save` is the caller's. */
    async function formAction(request: Req, draw: (o: Shown) => Promise<FastifyReply>, save: (body: AddressInput) => Promise<FastifyReply>) {
      const form: Form = { ...(request.body ?? {}) };
      const problems = new Problems();
      const action = field(form, 'action');
      if (action === 'check') {
        const livemode = modeOf(request.query.mode) === 'live';
        const check = await checkAddress(ctx, { form, prefix: PREFIX, livemode, log: request.log, problems });
        return draw({ form, problems, check });
      }
      if (action === 'use_checked') return draw({ form: useChecked(form, PREFIX), notice: 'The checked address is now in the form; save it to keep it.' });
      const body = readAddress(form, PREFIX);
      const refused = addressRefusal(body);
      try {
        if (refused) throw refused;
        return await save(normalized(body as AddressInput));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        problems.addRefusal(err, fieldOf);
        return draw({ form, problems, status: err.status });
      }
    }

    const ownAddress = (request: Req) => findOwnAddress(ctx.db, ownerOf(sessionOf(request), modeOf(request.query.mode)), request.params.id);
    const notFound = (request: Req, reply: FastifyReply) =>
      sendPage(
        reply,
        { title: 'Not found', session: sessionOf(request), active: 'addresses', error: 'There is no such address.', body: html`<p><a href="${bookPath(modeOf(request.query.mode))}">All addresses</a></p>` },
        404,
      );

    app.get('/portal/addresses', (request: Req, reply) => bookPage(request, reply));

    app.post('/portal/addresses', (request: Req, reply) =>
      formAction(
        request,
        (o) => bookPage(request, reply, o),
        async (address) => {
          const mode = modeOf(request.query.mode);
          const { row, created } = await saveAddress(ctx.db, ownerOf(sessionOf(request), mode), { id: makeId('adr', Date.now(), randomBytes(16)), address, now: ctx.now() });
          request.log.info({ action: 'address_saved', address_id: row.id, created }, 'portal: address saved');
          return reply.redirect(`${bookPath(mode)}&notice=${created ? 'address_saved' : 'address_exists'}`, 303);
        },
      ),
    );

    app.get('/portal/addresses/:id', async (request: Req, reply) => {
      const row = await ownAddress(request);
      return row ? editPage(request, reply, row) : notFound(request, reply);
    });

    app.post('/portal/addresses/:id', async (request: Req, reply) => {
      const row = await ownAddress(request);
      if (!row) return notFound(request, reply);
      return formAction(
        request,
        (o) => editPage(request, reply, row, o),
        async (address) => {
          const mode: Mode = row.livemode ? 'live' : 'test';
          const outcome = await updateOwnAddress(ctx.db, ownerOf(sessionOf(request), mode), row.id, address, ctx.now());
          if (outcome.kind === 'missing') return notFound(request, reply);
          if (outcome.kind === 'duplicate') {
            throw new ApiError(CODE.address_already_exists, `The edit would make this address the same as another saved one (${outcome.existingId}); nothing was changed.`);
          }
          request.log.info({ action: 'address_updated', address_id: row.id }, 'portal: address edited');
          return reply.redirect(`${bookPath(mode)}&notice=address_updated`, 303);
        },
      );
    });

    app.post('/portal/addresses/:id/delete', async (request: Req, reply) => {
      const mode = modeOf(request.query.mode);
      if (!(await deleteOwnAddress(ctx.db, ownerOf(sessionOf(request), mode), request.params.id, ctx.now()))) return notFound(request, reply);
      request.log.info({ action: 'address_deleted', address_id: request.params.id }, 'portal: address deleted');
      return reply.redirect(`${bookPath(mode)}&notice=address_deleted`, 303);
    });
  };
