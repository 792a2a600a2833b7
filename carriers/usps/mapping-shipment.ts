import { createHash } from 'node:crypto';
import type { Address, Parcel, ShipmentOptions } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { toUspsLabelAddress } from './mapping-address.js';
import { dollarsToCents } from './mapping-rates.js';
import { uspsExtras } from './mapping-options.js';
import type { Label, LabelReprint } from './schemas/index.js';
import { processingCategory, uspsDimensions, uspsIneligibility, uspsServiceByCode } from './services.js';

/** The request as USPS's document defines it (carriers/usps/schemas, generated). */
type UspsLabelRequest = Label.Request;
type UspsLabelReprintRequest = LabelReprint.Request;

export type LabelFormat = 'gif' | 'png' | 'pdf' | 'zpl';

export interface BoughtLabel {
  trackingNumber: string;
  label: { format: LabelFormat; contentBase64: string };
  /** What USPS charged, in cents; null when the answer does not say. */
  billed: { amount: number; currency: 'USD' } | null;
  /** USPS has no purchase id of its own: the tracking number is what cancels the label. */
  carrierShipmentId: string;
}

export type CancelOutcome =
  | { kind: 'cancelled' }
  | { kind: 'refund_requested' }
  | { kind: 'refused'; reason: 'already_scanned' | 'not_cancellable'; message: string };

/** `ImageInfo.imageType` per label format of ours: ZPL at 203 dpi, as our ZPL file is (contract: Labels). */
export const USPS_IMAGE_TYPE: Record<LabelFormat, 'GIF' | 'PNG' | 'PDF' | 'ZPL203DPI'> = {
  gif: 'GIF',
  png: 'PNG',
  pdf: 'PDF',
  zpl: 'ZPL203DPI',
};

// A fixed namespace for the name-based UUIDs below: changing it would re-key every purchase in flight.
const IDEMPOTENCY_NAMESPACE = Buffer.from('6f0b3c1e2a9d4c8e9b7f5a4d3c2b1a09', 'hex');

/**
 * The `X-Idempotency-Key` for one of our shipments. The document requires a UUID, and our shipment
 * ids (`shp_…`) are not UUIDs, so the key is the RFC 9562 name-based (version 5, SHA-1) UUID of the
 * shipment id: the same on every retry of the purchase, different for every shipment, and
 * recomputable from the shipment id alone when a lost answer has to be settled.
 */
export function uspsIdempotencyKey(shipmentId: string): string {
  const hash = createHash('sha1').update(IDEMPOTENCY_NAMESPACE).update(shipmentId, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface UspsPurchaseInput {
  /** Our shipment id: the idempotency key's source and the label's customer reference. */
  shipmentId: string;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  format: LabelFormat;
  /** The day the parcel is mailed, `YYYY-MM-DD` (required by the document; today plus 0 to 7 days). */
  mailingDate: string;
  /** Signature and insurance, sent as extra services (extras.ts). */
  options?: ShipmentOptions;
}

export interface UspsPurchaseRequest {
  idempotencyKey: string;
  body: UspsLabelRequest;
}

/** The `POST /labels/v3/label` body and idempotency key. Throws on a service, parcel or address USPS would refuse. */
export function buildUspsLabelRequest(input: UspsPurchaseInput): UspsPurchaseRequest {
  const service = uspsServiceByCode(input.serviceCode);
  if (!service) throw new Error(`${input.serviceCode} is not a USPS service`);
  const d = uspsDimensions(input.parcel);
  const ineligible = uspsIneligibility(service, d);
  if (ineligible) throw new Error(ineligible);
  // A customer reference holds at most 30 characters; our shipment ids are exactly 30.
  const reference = input.shipmentId.length <= 30 ? [{ referenceNumber: input.shipmentId }] : undefined;
  return {
    idempotencyKey: uspsIdempotencyKey(input.shipmentId),
    body: {
      // No receipt: the default (`SAME_PAGE`) would put one beside the label on the page.
      imageInfo: { imageType: USPS_IMAGE_TYPE[input.format], labelType: '4X6LABEL', receiptOption: 'NONE' },
      toAddress: toUspsLabelAddress(input.to),
      fromAddress: toUspsLabelAddress(input.from),
      packageDescription: {
        mailClass: service.mailClass,
        rateIndicator: service.rateIndicator,
        weightUOM: 'lb',
        weight: d.weight,
        dimensionsUOM: 'in',
        length: d.length,
        width: d.width,
        height: d.height,
        processingCategory: processingCategory(d),
        destinationEntryFacilityType: 'NONE',
        mailingDate: input.mailingDate,
        ...(reference ? { customerReference: reference } : {}),
        ...domesticExtras(input.options, service.mailClass),
      },
    },
  };
}

/**
 * The extra services of a domestic label: their codes, the insured `packageValue` ("required when
 * 930 is provided"), and `physicalSignatureRequired`, which the document requires with a signature
 * service or insurance above $500.
 */
export function domesticExtras(options: ShipmentOptions | undefined, mailClass: string): { extraServices?: Array<921 | 922 | 930 | 931 | 981>; packageOptions?: { packageValue: number }; physicalSignatureRequired?: boolean } {
  const extras = uspsExtras(options, mailClass);
  if (extras.codes.length === 0) return {};
  return {
    extraServices: extras.codes,
    ...(extras.insuredDollars === undefined ? {} : { packageOptions: { packageValue: extras.insuredDollars } }),
    ...(extras.signature || extras.codes.includes(931) ? { physicalSignatureRequired: true } : {}),
  };
}

/** The `POST /labels/v3/label-reprint` body: the same image as the purchase asked for. */
export function buildUspsReprintRequest(format: LabelFormat): UspsLabelReprintRequest {
  return { imageInfo: { imageType: USPS_IMAGE_TYPE[format], labelType: '4X6LABEL' } };
}

/**
 * A label answer (`LabelVendorResponse`, or the `labelMetadata` + `labelImage` of a reprint) as our
 * bought label; undefined when it lacks a tracking number or an image.
 *
 * `billed` is `postage` plus the extra services' prices: the document says postage "does not include
 * insurance or other extra service fees", and the label answer has no total. The `fees` array is
 * not added: those fees (such as nonstandard length) are part of the postage required.
 */
export function parseUspsLabel(metadata: unknown, image: unknown, format: LabelFormat): BoughtLabel | undefined {
  if (!isRecord(metadata) || typeof image !== 'string') return undefined;
  const trackingNumber = metadata.trackingNumber;
  const contentBase64 = image.replace(/\s+/g, '');
  if (typeof trackingNumber !== 'string' || trackingNumber === '' || contentBase64 === '') return undefined;
  return { trackingNumber, label: { format, contentBase64 }, billed: billedOf(metadata), carrierShipmentId: trackingNumber };
}

/** The purchase answer, asked for as `application/vnd.usps.labels+json`: metadata and image in one object. */
export function parseUspsLabelResponse(body: unknown, format: LabelFormat): BoughtLabel | undefined {
  return isRecord(body) ? parseUspsLabel(body, body.labelImage, format) : undefined;
}

/**
 * The document's default label answer, `multipart/form-data`: a `labelMetadata` part (JSON) and a
 * `labelImage` part (base64, whatever its Content-Transfer-Encoding says). We ask for JSON; this
 * reads the multipart form all the same, should an answer come that way.
 */
export function parseUspsMultipartLabel(contentType: string, text: string, format: LabelFormat): BoughtLabel | undefined {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!/^multipart\/form-data/i.test(contentType.trim()) || !boundary) return undefined;
  const parts = new Map<string, string>();
  for (const chunk of text.split(`--${boundary}`)) {
    const split = chunk.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const name = /name="([^"]+)"/i.exec(chunk.slice(0, split))?.[1];
    if (name) parts.set(name, chunk.slice(split + 4).replace(/\r\n$/, ''));
  }
  let metadata: unknown;
  try {
    metadata = JSON.parse(parts.get('labelMetadata') ?? '');
  } catch {
    return undefined;
  }
  return parseUspsLabel(metadata, parts.get('labelImage'), format);
}

/** The reprint answer (`LabelReprintDomesticOutboundResponse`). */
export function parseUspsReprintResponse(body: unknown, format: LabelFormat): BoughtLabel | undefined {
  return isRecord(body) ? parseUspsLabel(body.labelMetadata, body.labelImage, format) : undefined;
}

function billedOf(metadata: Record<string, unknown>): BoughtLabel['billed'] {
  if (typeof metadata.postage !== 'number' || !Number.isFinite(metadata.postage)) return null;
  let cents = dollarsToCents(metadata.postage);
  for (const extra of Array.isArray(metadata.extraServices) ? metadata.extraServices : []) {
    if (isRecord(extra) && typeof extra.price === 'number' && Number.isFinite(extra.price)) cents += dollarsToCents(extra.price);
  }
  return { amount: cents, currency: 'USD' };
}

/** A 200 to a cancel: `CANCELED` cancels outright, `DISPUTED` means a refund request was submitted. */
export function parseUspsCancelResponse(body: unknown): CancelOutcome | undefined {
  if (!isRecord(body)) return undefined;
  if (body.status === 'CANCELED') return { kind: 'cancelled' };
  if (body.status === 'DISPUTED') return { kind: 'refund_requested' };
  return undefined;
}
