import type { Address, Parcel, ShipmentOptions } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { toUspsLabelAddress } from './mapping-address.js';
import { domesticExtras, USPS_IMAGE_TYPE, type BoughtLabel, type LabelFormat } from './mapping-shipment.js';
import { dollarsToCents } from './mapping-rates.js';
import type { ReturnLabel } from './schemas/index.js';

type UspsReturnLabelRequest = ReturnLabel.Request;
import { processingCategory, uspsDimensions, uspsIneligibility, uspsServiceByCode, type UspsServiceCode } from './services.js';

/** Each domestic service's return mail class: what `POST /labels/v3/return-label` buys and the price search prices. */
export const USPS_RETURN_MAIL_CLASS: Record<UspsServiceCode, UspsReturnLabelRequest['packageDescription']['mailClass']> = {
  usps_ground_advantage: 'USPS_GROUND_ADVANTAGE_RETURN_SERVICE',
  usps_priority_mail: 'PRIORITY_MAIL_RETURN_SERVICE',
  usps_priority_mail_express: 'PRIORITY_MAIL_EXPRESS_RETURN_SERVICE',
};

/**
 * The return label body: `from` is the customer sending the parcel back, `to` where it returns
 * (the document's own reading of the two). The returns package description has no mailing date:
 * a return label is used whenever the customer mails it.
 */
export function buildUspsReturnLabelRequest(p: { serviceCode: string; reference: string; from: Address; to: Address; parcel: Parcel; options?: ShipmentOptions; format: LabelFormat }): UspsReturnLabelRequest {
  const service = uspsServiceByCode(p.serviceCode);
  if (!service) throw new Error(`${p.serviceCode} is not a USPS domestic service`);
  const d = uspsDimensions(p.parcel);
  const ineligible = uspsIneligibility(service, d);
  if (ineligible) throw new Error(ineligible);
  const mailClass = USPS_RETURN_MAIL_CLASS[service.code];
  return {
    imageInfo: { imageType: USPS_IMAGE_TYPE[p.format], labelType: '4X6LABEL', receiptOption: 'NONE' },
    toAddress: toUspsLabelAddress(p.to),
    fromAddress: toUspsLabelAddress(p.from),
    packageDescription: {
      mailClass,
      rateIndicator: service.rateIndicator,
      processingCategory: processingCategory(d),
      weightUOM: 'lb',
      weight: d.weight,
      dimensionsUOM: 'in',
      length: d.length,
      width: d.width,
      height: d.height,
      ...(p.reference.length <= 30 ? { customerReference: [{ referenceNumber: p.reference }] } : {}),
      ...returnExtras(p.options, mailClass),
    },
  };
}

function returnExtras(options: ShipmentOptions | undefined, mailClass: string): Pick<UspsReturnLabelRequest['packageDescription'], 'extraServices' | 'packageOptions'> {
  // The returns description has no physicalSignatureRequired: the codes and the value carry it.
  const { extraServices, packageOptions } = domesticExtras(options, mailClass);
  return { ...(extraServices ? { extraServices } : {}), ...(packageOptions ? { packageOptions } : {}) };
}

/** The return label answer (`ReturnLabelVendorResponse`) as our bought label; undefined when unreadable. */
export function parseUspsReturnLabelResponse(body: unknown, format: LabelFormat): BoughtLabel | undefined {
  if (!isRecord(body)) return undefined;
  const trackingNumber = body.trackingNumber;
  const image = typeof body.returnLabelImage === 'string' ? body.returnLabelImage.replace(/\s+/g, '') : '';
  if (typeof trackingNumber !== 'string' || trackingNumber === '' || image === '') return undefined;
  let billed: BoughtLabel['billed'] = null;
  if (typeof body.postage === 'number' && Number.isFinite(body.postage)) {
    let cents = dollarsToCents(body.postage);
    for (const extra of Array.isArray(body.extraServices) ? body.extraServices : []) {
      if (isRecord(extra) && typeof extra.price === 'number' && Number.isFinite(extra.price)) cents += dollarsToCents(extra.price);
    }
    billed = { amount: cents, currency: 'USD' };
  }
  return { trackingNumber, label: { format, contentBase64: image }, billed, carrierShipmentId: trackingNumber };
}
