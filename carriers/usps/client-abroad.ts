import type { Address, Parcel, ShipmentOptions } from '../../domain/index.js';
import { CarrierError } from '../types.js';
import { buildUspsExtraQuery, parseUspsExtraPrices } from './mapping-options.js';
import {
  buildUspsIntlExtraQuery,
  buildUspsIntlLabelRequest,
  buildUspsIntlRateRequests,
  parseUspsIntlLabelResponse,
  uspsIntlProblems,
  uspsIntlServiceByCode,
} from './mapping-international.js';
import type { BoughtLabel, LabelFormat } from './mapping-shipment.js';
import type { RatedService } from './mapping-rates.js';
import { parseUspsRateResponse } from './mapping-rates.js';
import { buildUspsReturnLabelRequest, parseUspsReturnLabelResponse } from './mapping-returns.js';
import { uspsIdempotencyKey } from './mapping-shipment.js';
import type { UspsService } from './services.js';
import type { UspsAnswer, UspsSendOptions } from './client-calls.js';
import type { UspsPurchase } from './client-types.js';
import type { ExtraServiceRates } from './schemas/index.js';

/** What the client lends the international, return and extra-service calls. */
export interface UspsAbroadKit {
  authorized(options: UspsSendOptions): Promise<UspsAnswer>;
  paid(options: UspsSendOptions): Promise<UspsAnswer>;
  fail(answer: UspsAnswer): never;
  unreadable(what: string, write: boolean, status: number): never;
  refusal(answer: UspsAnswer): CarrierError;
  mailingDate(from: Address, at?: string): string;
  accountNumber: string;
  format: LabelFormat;
}

/** A price, or USPS's refusal of the piece (a 400), which leaves the service out of the quote. */
type Priced = RatedService | CarrierError;

export function uspsAbroadCalls(kit: UspsAbroadKit) {
  /** One search's answer in cents: null for a refusal (kept in `refusals`). */
  async function search(path: string, body: unknown): Promise<{ body: unknown } | CarrierError> {
    const answer = await kit.authorized({ method: 'POST', path, body, write: false });
    if (answer.status === 400) return kit.refusal(answer);
    if (answer.status !== 200) kit.fail(answer);
    return { body: answer.body };
  }

  /** The base price plus the extra services' prices, both from USPS's price searches. */
  async function priced(base: Priced, extraPath: string, extraQuery: unknown, codes: readonly number[]): Promise<Priced> {
    if (base instanceof CarrierError || extraQuery === null) return base;
    const extras = await search(extraPath, extraQuery);
    if (extras instanceof CarrierError) return extras;
    const cents = parseUspsExtraPrices(extras.body, codes);
    // A code missing from the answer is one USPS does not sell for this piece: not a price to guess.
    if (cents === undefined) return new CarrierError('definitive', `USPS sells no extra service ${codes.join(', ')} for ${base.carrierServiceCode}`, { carrierCode: 'usps', status: 400 });
    return { ...base, net: base.net + cents };
  }

  return {
    /** A domestic price (return classes for a return) with its options' extra services. */
    async domesticPrice(service: UspsService, body: { mailClass: string; originZIPCode: string; destinationZIPCode: string; weight: number; mailingDate?: string }, options: ShipmentOptions | undefined, mailClass: ExtraServiceRates.MailClass): Promise<Priced> {
      const answer = await search('/prices/v3/base-rates/search', { ...body, mailClass });
      const base = answer instanceof CarrierError ? answer : (parseUspsRateResponse(service, answer.body) ?? kit.unreadable('price search', false, 200));
      const query = buildUspsExtraQuery({ mailClass, originZIP: body.originZIPCode, destinationZIP: body.destinationZIPCode, weightLb: body.weight, ...(body.mailingDate ? { mailingDate: body.mailingDate } : {}), accountNumber: kit.accountNumber }, options);
      return priced(base, '/prices/v3/extra-service-rates/search', query, query?.extraServices ?? []);
    },

    /** International prices per mail class, insurance included when a declared value is asked for. */
    async rateInternational(from: Address, to: Address, parcel: Parcel, serviceCode: string | 'all', options: ShipmentOptions | undefined): Promise<Priced[]> {
      const mailingDate = kit.mailingDate(from);
      const settings = { accountNumber: kit.accountNumber };
      return Promise.all(
        buildUspsIntlRateRequests(from, to, parcel, serviceCode, mailingDate, settings).map(async ({ service, body }) => {
          const answer = await search('/international-prices/v3/base-rates/search', body);
          const base: Priced = answer instanceof CarrierError ? answer : (parseUspsRateResponse(service as unknown as UspsService, answer.body) ?? kit.unreadable('international price search', false, 200));
          if (!(base instanceof CarrierError)) base.serviceCode = service.code as RatedService['serviceCode'];
          const query = buildUspsIntlExtraQuery(service, to, parcel, options, mailingDate, settings);
          return priced(base, '/international-prices/v3/extra-service-rates/search', query, query?.extraServices ?? []);
        }),
      );
    },

    /** An international label with its customs form: one PDF, the label then its CN22 or CN23 pages. */
    async buyInternational(purchase: UspsPurchase): Promise<BoughtLabel> {
      const service = uspsIntlServiceByCode(purchase.serviceCode);
      if (!service) throw new CarrierError('definitive', `USPS has no international service ${purchase.serviceCode}`, { carrierCode: 'usps' });
      const problems = uspsIntlProblems(purchase.from, purchase.to, purchase.customs);
      if (problems.length || !purchase.customs) throw new CarrierError('definitive', problems.map((p) => `${p.path} ${p.message}`).join('; '), { carrierCode: 'usps' });
      const body = buildUspsIntlLabelRequest({ service, reference: purchase.shipmentId, from: purchase.from, to: purchase.to, parcel: purchase.parcel, customs: purchase.customs, ...(purchase.options ? { options: purchase.options } : {}), mailingDate: kit.mailingDate(purchase.from, purchase.at), imageType: 'PDF' });
      const answer = await kit.paid({
        method: 'POST',
        path: '/international-labels/v3/international-label',
        headers: { accept: 'application/vnd.usps.labels+json', 'x-idempotency-key': uspsIdempotencyKey(purchase.shipmentId) },
        body,
        write: true,
      });
      if (answer.status !== 200 && answer.status !== 201) kit.fail(answer);
      const label = parseUspsIntlLabelResponse(answer.body) ?? kit.unreadable('international label', true, answer.status);
      return { trackingNumber: label.trackingNumber, label: { format: 'pdf', contentBase64: label.labelBase64 }, billed: label.billedCents === null ? null : { amount: label.billedCents, currency: 'USD' }, carrierShipmentId: label.trackingNumber };
    },

    /**
     * An international label again, through international-labels' reprint (three a label): its PDF,
     * or its ZPL, which holds the label and the customs form's pages as further ZPL formats.
     */
    async reprintInternational(trackingNumber: string, format: LabelFormat): Promise<BoughtLabel> {
      if (format !== 'pdf' && format !== 'zpl') throw new CarrierError('definitive', `USPS reprints international labels as PDF or ZPL, not ${format}`, { carrierCode: 'usps' });
      const answer = await kit.paid({
        method: 'POST',
        path: `/international-labels/v3/international-label-reprint/${encodeURIComponent(trackingNumber)}`,
        headers: { accept: 'application/vnd.usps.labels+json' },
        body: { imageInfo: { imageType: format === 'zpl' ? 'ZPL203DPI' : 'PDF', labelType: '4X6LABEL' } },
        write: false,
      });
      if (answer.status !== 200) kit.fail(answer);
      const body = answer.body as { labelMetadata?: { internationalTrackingNumber?: unknown }; labelImage?: unknown } | undefined;
      const tracking = body?.labelMetadata?.internationalTrackingNumber;
      const image = typeof body?.labelImage === 'string' ? body.labelImage.replace(/\s+/g, '') : '';
      if (typeof tracking !== 'string' || image === '') kit.unreadable('international label reprint', false, answer.status);
      return { trackingNumber: tracking as string, label: { format, contentBase64: image }, billed: null, carrierShipmentId: tracking as string };
    },

    /** A domestic return label: `from` mails it back to `to`. */
    async buyReturn(purchase: UspsPurchase): Promise<BoughtLabel> {
      const body = buildUspsReturnLabelRequest({ serviceCode: purchase.serviceCode, reference: purchase.shipmentId, from: purchase.from, to: purchase.to, parcel: purchase.parcel, ...(purchase.options ? { options: purchase.options } : {}), format: kit.format });
      const answer = await kit.paid({
        method: 'POST',
        path: '/labels/v3/return-label',
        headers: { accept: 'application/vnd.usps.labels+json', 'x-idempotency-key': uspsIdempotencyKey(purchase.shipmentId) },
        body,
        write: true,
      });
      if (answer.status !== 200) kit.fail(answer);
      return parseUspsReturnLabelResponse(answer.body, kit.format) ?? kit.unreadable('return label', true, answer.status);
    },
  };
}

