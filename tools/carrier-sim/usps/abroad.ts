import type { IncomingHttpHeaders } from 'node:http';
import type { LabelArt } from '../label-art.js';
import { labelFile, type LabelFileType } from '../label-files.js';
import { canonical, header, round2 } from './http-io.js';
import type { UspsDesk, UspsReply } from './desk.js';
import { simExtraName, simLabelExtras } from './extras.js';
import { simInternationalPdf, simInternationalZpl, type SimCustomsForm } from './customs-pdf.js';
import { simPrice, simZone, type SimLabel } from './state.js';

/**
 * The USPS simulator's international prices and labels (with the customs form's pages in the label
 * PDF) and its domestic return labels, answering as international-prices, international-labels
 * and domestic-labels' `/return-label` say.
 */

const INTL: Record<string, { name: string; first: number; perPound: number; prefix: string; maxLb: number }> = {
  PRIORITY_MAIL_INTERNATIONAL: { name: 'PRIORITY MAIL INTERNATIONAL', first: 45.95, perPound: 3.5, prefix: 'CP', maxLb: 70 },
  PRIORITY_MAIL_EXPRESS_INTERNATIONAL: { name: 'PRIORITY MAIL EXPRESS INTERNATIONAL', first: 61.5, perPound: 4.2, prefix: 'EA', maxLb: 70 },
  'FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE': { name: 'FIRST-CLASS PKG INTL SERVICE', first: 16.75, perPound: 4.5, prefix: 'LX', maxLb: 4 },
};

/** USPS's price groups: Canada 1, Mexico 2, everyone else a farther group here. */
const priceGroup = (country: string) => (country === 'CA' ? 1 : country === 'MX' ? 2 : 5);

/** The international rate card, shared by the price search and the label. */
function simIntlPrice(mailClass: string, country: string, weightLb: number): number | undefined {
  const c = INTL[mailClass];
  if (!c || weightLb > c.maxLb) return undefined;
  const pounds = Math.max(1, Math.ceil(weightLb - 1e-9));
  return round2(c.first + c.perPound * (pounds - 1) + 4 * (priceGroup(country) - 1));
}

/** A UPU S10 number: two letters, eight digits and their check digit, `US`. */
function s10(prefix: string, serial: number): string {
  const digits = String(serial).padStart(8, '0');
  const sum = [8, 6, 4, 2, 3, 5, 9, 7].reduce((s, w, i) => s + w * Number(digits[i]), 0);
  const check = 11 - (sum % 11);
  return `${prefix}${digits}${check === 10 ? 0 : check === 11 ? 5 : check}US`;
}

export function intlRate(desk: UspsDesk, body: unknown): UspsReply {
  const q = body as { mailClass: string; destinationCountryCode: string; weight: number; processingCategory: string; rateIndicator: string; priceType: string };
  const price = simIntlPrice(q.mailClass, q.destinationCountryCode, q.weight);
  if (price === undefined) return desk.error(400, `The weight exceeds the limit for ${q.mailClass}`, 'weight');
  return desk.reply(200, {
    totalBasePrice: price,
    rates: [{ description: `${q.mailClass} ${q.processingCategory}`, priceType: q.priceType, price, weight: q.weight, fees: [], startDate: '2026-01-18', endDate: '', mailClass: q.mailClass, zone: String(priceGroup(q.destinationCountryCode)), processingCategory: q.processingCategory, rateIndicator: q.rateIndicator, destinationEntryFacilityType: 'NONE' }],
  });
}

type Address = Record<string, string | undefined>;
const lines = (...values: Array<string | undefined>) => values.filter((v): v is string => typeof v === 'string' && v !== '').map((v) => v.toUpperCase());

/** The same key with the same body answers the label already bought; with another body, a 400. */
function replayed(desk: UspsDesk, key: string | undefined, body: unknown): SimLabel | UspsReply | undefined {
  const existing = key ? desk.books.byKey(key) : undefined;
  if (!existing) return undefined;
  if (existing.requestText !== canonical(body)) return desk.error(400, 'X-Idempotency-Key was already used with a different request', 'X-Idempotency-Key');
  return existing;
}

function book(desk: UspsDesk, l: Omit<SimLabel, 'createdAt' | 'status' | 'reprints'>): SimLabel {
  const created: SimLabel = { ...l, createdAt: desk.now(), status: 'active', reprints: 0 };
  desk.books.add(created);
  desk.options.onPurchase?.(created);
  return created;
}

const customsForms = new WeakMap<SimLabel, SimCustomsForm>();

/** `POST /international-labels/v3/international-label`: 201 with the label and its customs pages in one PDF. */
export async function intlLabel(desk: UspsDesk, headers: IncomingHttpHeaders, body: unknown): Promise<UspsReply> {
  const key = header(headers, 'x-idempotency-key');
  const b = body as { imageInfo: { imageType: string }; toAddress: Address; fromAddress: Address; packageDescription: Record<string, any>; customsForm: SimCustomsForm };
  const again = replayed(desk, key, body);
  if (again && 'status' in again && typeof again.status === 'number') return again as UspsReply;
  let l = again as SimLabel | undefined;
  if (!l) {
    const p = b.packageDescription;
    const country = String(b.toAddress.countryISOAlpha2Code);
    const price = simIntlPrice(p.mailClass, country, p.weight);
    if (price === undefined) return desk.error(400, `The weight exceeds the limit for ${p.mailClass}`, 'weight');
    const priced = simLabelExtras(p.extraServices, p.mailClass, p.packageOptions?.packageValue);
    if ('refused' in priced) return desk.error(400, `Extra service ${priced.refused} is not available for ${p.mailClass} to ${country}`, 'extraServices');
    const trackingNumber = s10(INTL[p.mailClass].prefix, desk.books.labels.size + 1);
    const art: LabelArt = {
      carrier: 'USPS',
      service: INTL[p.mailClass].name,
      trackingNumber,
      from: lines(b.fromAddress.firm, b.fromAddress.streetAddress, b.fromAddress.secondaryAddress, `${b.fromAddress.city ?? ''} ${b.fromAddress.state ?? ''} ${b.fromAddress.ZIPCode ?? ''}`.trim()),
      to: lines(b.toAddress.firm, b.toAddress.streetAddress, b.toAddress.secondaryAddress, `${b.toAddress.city ?? ''} ${b.toAddress.province ?? ''} ${b.toAddress.postalCode ?? ''}`.trim(), b.toAddress.country),
      weight: `${p.weight} LB`,
      reference: String(p.customerReference?.[0]?.referenceNumber ?? ''),
    };
    l = book(desk, { trackingNumber, idempotencyKey: key, requestText: canonical(body), mailClass: p.mailClass, extras: priced.extras, api: 'international-labels', imageType: 'PDF', postage: price, zone: String(priceGroup(country)), mailingDate: p.mailingDate, destinationZIP: b.toAddress.postalCode ?? '', originZIP: String(b.fromAddress.ZIPCode), art });
    customsForms.set(l, { ...b.customsForm, ...(p.packageOptions?.nonDeliveryOption ? { nonDeliveryOption: p.packageOptions.nonDeliveryOption } : {}) });
  }
  const image = await simInternationalPdf(l.art, l.mailClass, customsForms.get(l) as SimCustomsForm);
  return desk.labelsReply(201, {
    internationalTrackingNumber: l.trackingNumber,
    constructCode: 'C01',
    // The document's SKU and price group have fixed lengths: 15 and 2 characters.
    SKU: `IP${l.mailClass.slice(0, 3)}0000000000`,
    postage: l.postage,
    extraServices: (l.extras ?? []).map((e) => ({ serviceID: String(e.code), serviceName: simExtraName(e.code), price: e.price })),
    internationalPriceGroup: l.zone.padStart(2, '0'),
    mailingDate: l.mailingDate,
    fees: [],
    labelImage: image,
  });
}

const REPRINT_PATH = '/international-labels/v3/international-label-reprint/';

/** `POST /international-labels/v3/international-label-reprint/{trackingNumber}`: PDF or ZPL, three times a label. */
export async function intlReprint(desk: UspsDesk, body: unknown, path: string): Promise<UspsReply> {
  const found = desk.books.byTracking(decodeURIComponent(path.slice(REPRINT_PATH.length)));
  const l = found?.api === 'international-labels' ? found : undefined;
  const form = l ? customsForms.get(l) : undefined;
  if (!l || !form) return desk.error(400, 'Label not found', 'trackingNumber');
  if (l.status !== 'active') return desk.error(400, 'Canceled labels are not eligible for reprint', 'trackingNumber');
  if (l.reprints >= 3) return desk.error(400, 'Labels can only be reprinted up to 3 times', 'trackingNumber');
  l.reprints++;
  const zpl = (body as { imageInfo: { imageType: string } }).imageInfo.imageType.startsWith('ZPL');
  const image = zpl ? simInternationalZpl(l.art, l.mailClass, form) : await simInternationalPdf(l.art, l.mailClass, form);
  return desk.labelsReply(200, { labelMetadata: { internationalTrackingNumber: l.trackingNumber, postage: l.postage, mailingDate: l.mailingDate }, labelImage: image, reprintInfo: { reprintNumber: l.reprints, reprintLimit: 3 } });
}

const RETURN_FILES: Record<string, LabelFileType> = { PDF: 'PDF', PNG: 'PNG', GIF: 'GIF', ZPL203DPI: 'ZPL' };

/** `POST /labels/v3/return-label`: the return label, priced as its return mail class. */
export async function returnLabel(desk: UspsDesk, headers: IncomingHttpHeaders, body: unknown): Promise<UspsReply> {
  const key = header(headers, 'x-idempotency-key');
  const b = body as { imageInfo: { imageType: string }; toAddress: Address; fromAddress: Address; packageDescription: Record<string, any> };
  const again = replayed(desk, key, body);
  if (again && 'status' in again && typeof again.status === 'number') return again as UspsReply;
  let l = again as SimLabel | undefined;
  if (!l) {
    const p = b.packageDescription;
    const zone = simZone(String(b.fromAddress.ZIPCode), String(b.toAddress.ZIPCode));
    const { price, fee } = simPrice(p.mailClass, zone, p.weight, p.processingCategory === 'NONSTANDARD');
    const priced = simLabelExtras(p.extraServices, p.mailClass, p.packageOptions?.packageValue);
    if ('refused' in priced) return desk.error(400, `Extra service ${priced.refused} is not available for ${p.mailClass}`, 'extraServices');
    const trackingNumber = desk.books.nextTrackingNumber();
    const place = (a: Address) => `${a.city ?? ''} ${a.state ?? ''} ${a.ZIPCode ?? ''}`.trim();
    const art: LabelArt = { carrier: 'USPS', service: String(p.mailClass).replace(/_/g, ' '), trackingNumber, from: lines(b.fromAddress.firm, b.fromAddress.streetAddress, b.fromAddress.secondaryAddress, place(b.fromAddress)), to: lines(b.toAddress.firm, b.toAddress.streetAddress, b.toAddress.secondaryAddress, place(b.toAddress)), weight: `${p.weight} LB`, reference: String(p.customerReference?.[0]?.referenceNumber ?? '') };
    l = book(desk, { trackingNumber, idempotencyKey: key, requestText: canonical(body), mailClass: p.mailClass, extras: priced.extras, api: 'labels', imageType: b.imageInfo.imageType, postage: round2(price + fee), zone: String(zone).padStart(2, '0'), mailingDate: new Date(desk.now()).toISOString().slice(0, 10), destinationZIP: String(b.toAddress.ZIPCode), originZIP: String(b.fromAddress.ZIPCode), art });
  }
  const image = await labelFile(l.art, RETURN_FILES[l.imageType] ?? 'PDF');
  return desk.labelsReply(200, {
    trackingNumber: l.trackingNumber,
    postage: l.postage,
    extraServices: (l.extras ?? []).map((e) => ({ name: simExtraName(e.code), SKU: `DX${e.code}`, price: e.price })),
    zone: l.zone,
    returnLabelImage: image,
  });
}
