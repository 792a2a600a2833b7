import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { findOwnAddress, listAddresses, type AddressRow } from '../../db/index.js';
import { ApiError, CODE, CUSTOMS_LIMITS, type Parcel } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { failureError } from '../routes/shipments.js';
import { checkPurchase, requestPurchase } from '../services/purchase.js';
import { quoteShipment } from '../services/quote.js';
import { shipmentTerms } from '../services/shipment-terms.js';
import type { PurchaseRequest } from '../schemas-shipment.js';
import { checkAddress, useChecked, type Verification } from './address-fields.js';
import { buyerOf, modeSwitch, sessionOf, type Req } from './common.js';
import { defaultAction, dotted, Problems } from './fields.js';
import { formKeyOf, formRequest, newFormKey } from './form-keys.js';
import { field, type Form } from './forms.js';
import { guardPages } from './guard.js';
import { html } from './html.js';
import { csrfField, modeName, modeOf, sendPage } from './layout.js';
import { bodyRefusal, deskFieldOf, lineCount, pathInMessage, shipmentBody } from './shipment-form.js';
import { deskSections, type Rates } from './shipment-form-view.js';

/** What a drawing of the form shows besides its fields. */
interface Shown {
  form?: Form;
  problems?: Problems;
  rates?: Rates;
  check?: Verification;
  notice?: string;
  status?: number;
}

const ACTION = 'POST /portal/shipments/new';

/**
 * New shipment (`/portal/shipments/new`): one form, posted back to itself by its buttons, each doing
 * what the API does for the same body: "Check address" (`POST /addresses/verify`), "Get rates"
 * (`POST /quotes`) and "Buy label" (`POST /shipments`, under the form's own idempotency key). The
 * form comes back as it was sent, with the answer beside it and every refusal at its field.
 */
export const portalDeskPages =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    guardPages(app, ctx, 'customer');

    async function deskPage(request: Req, reply: FastifyReply, o: Shown = {}) {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const buyer = buyerOf(s, mode);
      if (!s.account.apiEnabled) {
        const body = html`<section><p>Labels can be bought once an administrator has enabled API access. <a href="/portal">Request API access</a> on the overview.</p></section>`;
        return sendPage(reply, { title: 'New shipment', session: s, active: 'new', body }, 403);
      }
      const problems = o.problems ?? new Problems();
      const form: Form = { ...(o.form ?? {}) };
      const key = formKeyOf(form) ?? newFormKey();
      const { rows: book } = await listAddresses(ctx.db, { ...buyer.owner, limit: 100 });
      const chosen = await chosenAddress(buyer.owner, form);
      const sections = deskSections({ form, book, chosen, problems, rates: o.rates, check: o.check });
      const body = html`${problems.summary()}<form method="post" action="/portal/shipments/new?mode=${mode}" novalidate>${csrfField(s)}
<input type="hidden" name="form_key" value="${key}">${defaultAction('rates', 'Get rates')}${modeSwitch('/portal/shipments/new', mode)}
<p class="hint">A ${modeName(mode).toLowerCase()} label${mode === 'test' ? ': real label files and tracking numbers, no carrier and no money' : ', bought from the carrier and charged to your account'}.</p>
${sections}</form>`;
      return sendPage(reply, { title: 'New shipment', session: s, active: 'new', notice: o.notice, body }, o.status ?? (problems.any ? 422 : 200));
    }

    async function chosenAddress(owner: { accountId: string; livemode: boolean }, form: Form | undefined): Promise<AddressRow | undefined> {
      const id = field(form, 'book');
      return id ? findOwnAddress(ctx.db, owner, id) : undefined;
    }

    /**
     * An API refusal at the form's fields. With no address of the book chosen, that is said once at
     * the choice, instead of every field the missing address lacks.
     */
    function refuse(problems: Problems, err: ApiError, form: Form | undefined, chosen: AddressRow | undefined): void {
      const at = deskFieldOf(form);
      if (chosen) {
        problems.addRefusal(err, at);
        return;
      }
      problems.add('book', field(form, 'book') ? 'There is no such address in your address book.' : 'Choose your address.');
      const rest = (err.extra.errors ?? []).filter((e) => at(dotted(e.path), e.message).field !== 'book');
      if (rest.length) problems.addRefusal(new ApiError(err.code, err.message, { errors: rest }), at);
    }

    /** The refusal of a form that names none of your addresses, said at the choice (see `refuse`). */
    const noAddress = () => new ApiError(CODE.validation_failed, 'Choose your address.', { errors: [] });

    /** "Get rates": the quote of the form's parcel, route and options, or its refusal at the fields. */
    async function rate(request: Req, form: Form, problems: Problems): Promise<Rates | undefined> {
      const buyer = buyerOf(sessionOf(request), modeOf(request.query.mode));
      const chosen = await chosenAddress(buyer.owner, form);
      const body = shipmentBody(form, chosen, 'quote');
      const refused = bodyRefusal(body, 'quote') ?? (chosen ? null : noAddress());
      if (refused) {
        refuse(problems, refused, form, chosen);
        return undefined;
      }
      try {
        const terms = shipmentTerms(body as unknown as PurchaseRequest, buyer.account.currency, 'quote');
        return await quoteShipment(ctx, buyer, body.parcel as Parcel, terms.from, terms.to, { terms: { options: terms.options, isReturn: terms.isReturn } });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        refuse(problems, err, form, chosen);
        return undefined;
      }
    }

    /** "Buy label": the purchase of the chosen rate under the form's key; the shipment's page, or the form with its refusal. */
    async function buy(request: Req, reply: FastifyReply, form: Form) {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const buyer = buyerOf(s, mode);
      const problems = new Problems();
      const key = formKeyOf(form);
      if (!key) return deskPage(request, reply, { form: { ...form, form_key: '' }, problems: problems.add(null, 'This form has expired: nothing was bought. Check it and buy again.') });
      const chosen = await chosenAddress(buyer.owner, form);
      const body = shipmentBody(form, chosen, 'purchase');
      const again = async (status?: number) => deskPage(request, reply, { form, problems, rates: await rate(request, form, new Problems()), status });
      const refused = bodyRefusal(body, 'purchase') ?? (chosen ? null : noAddress());
      if (refused) {
        refuse(problems, refused, form, chosen);
        return again();
      }
      let answer;
      try {
        const request_ = body as unknown as PurchaseRequest;
        const terms = shipmentTerms(request_, buyer.account.currency, 'purchase');
        const order = { service: request_.service, parcel: request_.parcel, reference: request_.reference, terms };
        checkPurchase(ctx, buyer, order);
        answer = await requestPurchase(ctx, buyer, order, { idempotency: formRequest(buyer.owner, key, ACTION, body), requestId: String(request.id), log: request.log });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.code === CODE.idempotency_key_reused) {
          problems.add(null, 'This form has already bought a label with other details, so it was not used again. Open a new shipment form to buy another.');
        } else refuse(problems, err, form, chosen);
        return again(err.status);
      }
      const id = answer.stored ? (answer.stored.body as { id?: string }).id : answer.row.id;
      if (!answer.stored && answer.row.status === 'failed') {
        const err = failureError(answer.row);
        const path = pathInMessage(err.message);
        problems.add(path ? deskFieldOf(form)(path, err.message).field : null, `Nothing was bought or charged: ${err.message}`);
        return again(err.status);
      }
      request.log.info({ action: 'label_bought', shipment_id: id }, 'portal: label bought');
      const notice = !answer.stored && answer.row.status === 'pending' ? 'purchase_pending' : 'purchased';
      return reply.redirect(`/portal/shipments/${encodeURIComponent(String(id))}?mode=${mode}&notice=${notice}`, 303);
    }

    app.get('/portal/shipments/new', (request: Req, reply) => deskPage(request, reply));

    app.post('/portal/shipments/new', async (request: Req, reply) => {
      if (!sessionOf(request).account.apiEnabled) return deskPage(request, reply);
      const form: Form = { ...(request.body ?? {}) };
      const problems = new Problems();
      const mode = modeOf(request.query.mode);
      // Rates once shown stay shown while the form is worked on (quoted again: the form may have changed).
      const rated = async (f: Form) => (field(f, 'rated') === '1' ? rate(request, f, new Problems()) : undefined);
      switch (field(form, 'action')) {
        case 'check': {
          const check = await checkAddress(ctx, { form, prefix: 'cust', livemode: mode === 'live', log: request.log, problems });
          return deskPage(request, reply, { form, problems, check, rates: await rated(form) });
        }
        case 'use_checked': {
          const checked = useChecked(form, 'cust');
          return deskPage(request, reply, { form: checked, notice: "The checked address is now the customer's address.", rates: await rated(checked) });
        }
        case 'add_line':
          return deskPage(request, reply, { form: { ...form, lines: String(Math.min(lineCount(form) + 1, CUSTOMS_LIMITS.maxItems)) }, rates: await rated(form) });
        case 'buy':
          return buy(request, reply, form);
        default: {
          const rates = await rate(request, form, problems);
          return deskPage(request, reply, { form, problems, rates });
        }
      }
    });
  };
