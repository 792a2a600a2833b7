import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { findOwnShipment, type ShipmentRow } from '../../db/index.js';
import { ApiError, shipmentToJson, type Address } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { failureError } from '../routes/shipments.js';
import { voidShipment } from '../routes/void.js';
import { checkPurchase, requestPurchase } from '../services/purchase.js';
import { returnOrder } from '../services/return.js';
import { addressLine } from './address-fields.js';
import { buyerOf, ownerOf, sessionOf, type Req } from './common.js';
import { claimFormKey, formKeyOf, formRequest, newFormKey, releaseFormKey, saveFormAnswer } from './form-keys.js';
import { guardPages } from './guard.js';
import { html, type Html } from './html.js';
import { csrfField, modeOf, sendPage, type Mode } from './layout.js';
import { priceOf, shipmentPath } from './shipment-page.js';

type Action = 'void' | 'return';

/**
 * Void and Create return label: each button opens a page that says what will happen and asks to
 * confirm; the confirming form carries its own idempotency key (api/web/form-keys.ts), so a double
 * click voids or buys once. A refusal comes back in the contract's words, on the confirming page.
 */
export const portalShipmentActions =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    guardPages(app, ctx, 'customer');

    const ownShipment = (request: Req) => findOwnShipment(ctx.db, ownerOf(sessionOf(request), modeOf(request.query.mode)), request.params.id);
    const notFound = (request: Req, reply: FastifyReply) =>
      sendPage(
        reply,
        { title: 'Not found', session: sessionOf(request), active: 'shipments', error: 'There is no such shipment.', body: html`<p><a href="/portal/shipments?mode=${modeOf(request.query.mode)}">All shipments</a></p>` },
        404,
      );

    function explain(action: Action, row: ShipmentRow): Html {
      const from = addressLine(row.toAddress as Address);
      const to = addressLine(row.fromAddress as Address);
      return action === 'void'
        ? html`<p>The carrier is asked to cancel the label of <strong>${row.serviceName ?? row.serviceCode}</strong>${row.trackingNumber ? html` (<code>${row.trackingNumber}</code>)` : ''}, and its charge of <strong>${priceOf(row)}</strong> is given back once it has${
            row.livemode ? '' : ' (a sandbox label: no carrier and no money)'
          }. A label the carrier has already scanned cannot be voided.</p>`
        : html`<p>A return label brings the parcel back: from <strong>${from}</strong> to <strong>${to}</strong>, by the same service (${row.serviceName ?? row.serviceCode}) and with the same parcel${
            row.customs ? ', declared as returned goods' : ''
          }. It is priced and charged like any label.</p>`;
    }

    async function confirmPage(request: Req, reply: FastifyReply, action: Action, row: ShipmentRow, o: { error?: string; status?: number } = {}) {
      const s = sessionOf(request);
      const mode: Mode = row.livemode ? 'live' : 'test';
      const title = action === 'void' ? 'Void this label?' : 'Create a return label?';
      const body = html`<section aria-labelledby="confirm-h"><h2 id="confirm-h">Shipment <code>${row.id}</code></h2>${explain(action, row)}
<form method="post" action="/portal/shipments/${row.id}/${action}?mode=${mode}">${csrfField(s)}<input type="hidden" name="form_key" value="${newFormKey()}">
<div class="actions"><button type="submit" id="confirm" class="${action === 'void' ? 'danger' : ''}">${action === 'void' ? 'Void label' : 'Buy return label'}</button>
<a href="${shipmentPath(row.id, mode)}">Cancel</a></div></form></section>`;
      return sendPage(reply, { title, session: s, active: 'shipments', error: o.error, body }, o.status);
    }

    for (const action of ['void', 'return'] as const) {
      app.get(`/portal/shipments/:id/${action}`, async (request: Req, reply) => {
        const row = await ownShipment(request);
        return row ? confirmPage(request, reply, action, row) : notFound(request, reply);
      });
    }

    app.post('/portal/shipments/:id/void', async (request: Req, reply) => {
      const s = sessionOf(request);
      const row = await ownShipment(request);
      if (!row) return notFound(request, reply);
      const mode: Mode = row.livemode ? 'live' : 'test';
      const key = formKeyOf(request.body);
      if (!key) return confirmPage(request, reply, 'void', row, { error: 'This form has expired: nothing was voided. Confirm again.', status: 403 });
      const idem = formRequest(ownerOf(s, mode), key, `POST /portal/shipments/${row.id}/void`, {});
      let answer;
      try {
        const { replay } = await claimFormKey(ctx, idem);
        if (replay) return reply.redirect(`${shipmentPath(row.id, mode)}&notice=voided`, 303);
        answer = await voidShipment(ctx, buyerOf(s, mode), row, idem, String(request.id));
      } catch (err) {
        await releaseFormKey(ctx, idem, err);
        if (!(err instanceof ApiError)) throw err;
        return confirmPage(request, reply, 'void', (await ownShipment(request)) ?? row, { error: `The label was not voided: ${err.message}`, status: err.status });
      }
      if (answer.status === 200) await saveFormAnswer(ctx, idem, 200, shipmentToJson(answer.row));
      request.log.info({ action: 'label_voided', shipment_id: row.id, status: answer.row.status }, 'portal: void requested');
      return reply.redirect(`${shipmentPath(row.id, mode)}&notice=${answer.status === 200 ? 'voided' : 'voiding'}`, 303);
    });

    app.post('/portal/shipments/:id/return', async (request: Req, reply) => {
      const s = sessionOf(request);
      const original = await ownShipment(request);
      if (!original) return notFound(request, reply);
      const mode: Mode = original.livemode ? 'live' : 'test';
      const buyer = buyerOf(s, mode);
      const key = formKeyOf(request.body);
      if (!key) return confirmPage(request, reply, 'return', original, { error: 'This form has expired: nothing was bought. Confirm again.', status: 403 });
      if (!s.account.apiEnabled) return confirmPage(request, reply, 'return', original, { error: 'Labels can be bought once an administrator has enabled API access.', status: 403 });
      let answer;
      try {
        const order = returnOrder(original, undefined);
        checkPurchase(ctx, buyer, order);
        const idempotency = formRequest(buyer.owner, key, `POST /portal/shipments/${original.id}/return`, {});
        answer = await requestPurchase(ctx, buyer, order, { idempotency, requestId: String(request.id), log: request.log });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return confirmPage(request, reply, 'return', original, { error: `No return label was bought: ${err.message}`, status: err.status });
      }
      if (!answer.stored && answer.row.status === 'failed') {
        const err = failureError(answer.row);
        return confirmPage(request, reply, 'return', original, { error: `No return label was bought, and nothing was charged: ${err.message}`, status: err.status });
      }
      const id = String(answer.stored ? (answer.stored.body as { id?: string }).id : answer.row.id);
      request.log.info({ action: 'return_label_bought', shipment_id: id, return_of: original.id }, 'portal: return label bought');
      const pending = !answer.stored && answer.row.status === 'pending';
      return reply.redirect(`${shipmentPath(id, mode)}&notice=${pending ? 'purchase_pending' : 'return_bought'}`, 303);
    });
  };
