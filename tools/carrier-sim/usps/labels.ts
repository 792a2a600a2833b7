import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { LabelArt } from '../label-art.js';
import { labelFile, type LabelFileType } from '../label-files.js';
import { canonical, disputeId, header, round2 } from './http-io.js';
import type { UspsDesk, UspsReply } from './desk.js';
import { simExtraName, simLabelExtras } from './extras.js';
import { SIM_ACCEPTED_AFTER_MS, simPrice, simZone, type MailClass, type SimLabel } from './state.js';

/** The USPS simulator's Domestic Labels answers: purchase, reprint and cancel, with the label files. */

const JSON_LABELS = 'application/vnd.usps.labels+json';
const SERVICE_NAMES: Record<MailClass, string> = {
  USPS_GROUND_ADVANTAGE: 'USPS GROUND ADVANTAGE',
  PRIORITY_MAIL: 'PRIORITY MAIL',
  PRIORITY_MAIL_EXPRESS: 'PRIORITY MAIL EXPRESS',
};
/** Our file of an `imageType`, with the part's name and type in a multipart answer. */
const FILES: Record<string, [LabelFileType, string, string]> = {
  PDF: ['PDF', 'label.pdf', 'application/pdf'],
  PNG: ['PNG', 'label.png', 'image/png'],
  GIF: ['GIF', 'label.gif', 'image/gif'],
  JPG: ['JPG', 'label.jpg', 'image/jpeg'],
  TIFF: ['TIFF', 'label.tif', 'image/tiff'],
  ZPL203DPI: ['ZPL', 'label.zpl', 'application/zpl'],
  ZPL300DPI: ['ZPL', 'label.zpl', 'application/zpl'],
};
const fileOf = (imageType: string) => FILES[imageType] ?? FILES.PDF;

type LabelAddress = { firstName?: string; lastName?: string; firm?: string; streetAddress?: string; secondaryAddress?: string; city?: string; state?: string; ZIPCode?: string; ZIPPlus4?: string };

function addressLines(a: LabelAddress): string[] {
  const name = [a.firstName, a.lastName].filter(Boolean).join(' ');
  const place = `${a.city ?? ''} ${a.state ?? ''} ${a.ZIPCode ?? ''}${a.ZIPPlus4 ? `-${a.ZIPPlus4}` : ''}`.trim();
  return [name, a.firm, a.streetAddress, a.secondaryAddress, place].filter((v): v is string => typeof v === 'string' && v !== '').map((v) => v.toUpperCase());
}

export async function label(desk: UspsDesk, headers: IncomingHttpHeaders, body: unknown): Promise<UspsReply> {
  const key = header(headers, 'x-idempotency-key');
  const b = body as { imageInfo?: { imageType?: string }; toAddress: LabelAddress & { ZIPCode: string }; fromAddress: LabelAddress & { ZIPCode: string }; packageDescription: Record<string, any> };
  const existing = key ? desk.books.byKey(key) : undefined;
  if (existing) {
    // "When the same idempotency key is resubmitted with an identical request payload, the API will return the existing label."
    if (existing.requestText !== canonical(body)) return desk.error(400, 'X-Idempotency-Key was already used with a different request', 'X-Idempotency-Key');
    return labelReply(desk, headers, existing);
  }
  const p = b.packageDescription;
  const zone = simZone(b.fromAddress.ZIPCode, b.toAddress.ZIPCode);
  const { price, fee } = simPrice(p.mailClass as MailClass, zone, p.weight, p.processingCategory === 'NONSTANDARD');
  const priced = simLabelExtras(p.extraServices, p.mailClass, p.packageOptions?.packageValue);
  if ('refused' in priced) return desk.error(400, `Extra service ${priced.refused} is not available for ${p.mailClass}`, 'extraServices');
  const trackingNumber = desk.books.nextTrackingNumber();
  const art: LabelArt = {
    carrier: 'USPS',
    service: SERVICE_NAMES[p.mailClass as MailClass] ?? String(p.mailClass),
    trackingNumber,
    from: addressLines(b.fromAddress),
    to: addressLines(b.toAddress),
    weight: `${p.weight} LB`,
    reference: String(p.customerReference?.[0]?.referenceNumber ?? ''),
  };
  const created: SimLabel = {
    trackingNumber,
    idempotencyKey: key,
    requestText: canonical(body),
    mailClass: p.mailClass as MailClass,
    extras: priced.extras,
    api: 'labels',
    imageType: b.imageInfo?.imageType ?? 'PDF',
    postage: round2(price + fee),
    zone: String(zone).padStart(2, '0'),
    createdAt: desk.now(),
    mailingDate: p.mailingDate,
    destinationZIP: b.toAddress.ZIPCode,
    originZIP: b.fromAddress.ZIPCode,
    status: 'active',
    reprints: 0,
    art,
  };
  desk.books.add(created);
  desk.options.onPurchase?.(created);
  return labelReply(desk, headers, created);
}

function metadata(l: SimLabel) {
  return {
    routingInformation: `420${l.destinationZIP}`,
    trackingNumber: l.trackingNumber,
    constructCode: 'C01',
    postage: l.postage,
    extraServices: [{ name: 'USPS Tracking', price: 0 }, ...(l.extras ?? []).map((e) => ({ name: simExtraName(e.code), SKU: `DX${e.code}`, price: e.price }))],
    zone: l.zone,
    mailingDate: `${l.mailingDate}T22:00:00Z`,
    commitment: { name: l.mailClass === 'USPS_GROUND_ADVANTAGE' ? '3-Day' : l.mailClass === 'PRIORITY_MAIL' ? '2-Day' : '1-Day' },
    weightUOM: 'lb',
    fees: [],
  };
}

async function labelReply(desk: UspsDesk, headers: IncomingHttpHeaders, l: SimLabel): Promise<UspsReply> {
  const [type, filename, contentType] = fileOf(l.imageType);
  const image = await labelFile(l.art, type);
  if (!desk.options.labelsAlwaysMultipart && (headers.accept ?? '').includes(JSON_LABELS)) {
    return desk.labelsReply(200, { ...metadata(l), labelImage: image });
  }
  // The document's default: multipart/form-data with the metadata and the base64 image as parts.
  const boundary = `usps-${randomBytes(8).toString('hex')}`;
  const parts = [
    `--${boundary}\r\nContent-Disposition: form-data; name="labelMetadata"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(metadata(l))}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="labelImage"; filename="${filename}"\r\nContent-Type: ${contentType}\r\nContent-Transfer-Encoding: base64\r\n\r\n${image}\r\n`,
    `--${boundary}--\r\n`,
  ];
  return { status: 200, raw: parts.join(''), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A reprint by the label's tracking number (`/label-reprint/{trackingNumber}`) or by its idempotency key. */
export async function reprint(desk: UspsDesk, headers: IncomingHttpHeaders, body: unknown, path: string): Promise<UspsReply> {
  const key = header(headers, 'x-idempotency-key');
  const byTracking = path.startsWith('/labels/v3/label-reprint/') ? decodeURIComponent(path.slice('/labels/v3/label-reprint/'.length)) : undefined;
  const found = byTracking !== undefined ? desk.books.byTracking(byTracking) : key ? desk.books.byKey(key) : undefined;
  // Domestic-labels reprints its own labels; an international label is reprinted by international-labels.
  const l = found && (found.api ?? 'labels') === 'labels' ? found : undefined;
  if (!l) return desk.error(400, 'Label not found', byTracking !== undefined ? 'trackingNumber' : 'X-Idempotency-Key');
  if (l.status !== 'active') return desk.error(400, 'Canceled labels are not eligible for reprint', 'X-Idempotency-Key');
  if (l.reprints >= 3) return desk.error(400, 'Labels can only be reprinted up to 3 times', 'X-Idempotency-Key');
  l.reprints++;
  const imageType = (body as { imageInfo?: { imageType?: string } }).imageInfo?.imageType ?? 'PDF';
  const image = await labelFile(l.art, fileOf(imageType)[0]);
  return desk.labelsReply(200, { labelMetadata: metadata(l), labelImage: image, reprintInfo: { reprintNumber: l.reprints, reprintLimit: 3 } });
}

/**
 * A cancel by tracking number or by idempotency key, through domestic-labels (`/labels/v3/label`)
 * or international-labels (`/international-labels/v3/international-label`): each serves its own labels.
 */
export function cancel(desk: UspsDesk, headers: IncomingHttpHeaders, path: string): UspsReply {
  const key = header(headers, 'x-idempotency-key');
  const api = path.startsWith('/international-labels/') ? 'international-labels' : 'labels';
  const base = api === 'labels' ? '/labels/v3/label' : '/international-labels/v3/international-label';
  const found = path === base ? (key ? desk.books.byKey(key) : undefined) : desk.books.byTracking(decodeURIComponent(path.slice(base.length + 1)));
  const l = found && (found.api ?? 'labels') === api ? found : undefined;
  const t = desk.now();
  if (!l || l.status === 'canceled') return desk.error(400, 'Order not found', 'trackingNumber');
  const today = new Date(t).toISOString().slice(0, 10);
  if (l.status === 'disputed') {
    if (l.refundRequestedOn === today) return desk.error(400, 'A refund request for this order has already been submitted today', 'trackingNumber');
    return desk.reply(200, { trackingNumber: l.trackingNumber, status: 'DISPUTED', disputeId: disputeId(l) });
  }
  // USPS refunds unused labels only: once the item is scanned, a refund request cannot be submitted.
  const scanned = t >= l.createdAt + SIM_ACCEPTED_AFTER_MS || (desk.options.extraEvents?.(l.trackingNumber) ?? []).some((e) => e.at <= t);
  if (scanned) return desk.error(400, 'A refund request for this order cannot be submitted', 'trackingNumber');
  if (t < l.createdAt + (desk.options.manifestAfterMs ?? 30 * 60_000)) {
    l.status = 'canceled';
    desk.options.onCancel?.(l);
    return desk.reply(200, { trackingNumber: l.trackingNumber, status: 'CANCELED' });
  }
  l.status = 'disputed';
  l.refundRequestedOn = today;
  desk.options.onCancel?.(l);
  return desk.reply(200, { trackingNumber: l.trackingNumber, status: 'DISPUTED', disputeId: disputeId(l) });
}
