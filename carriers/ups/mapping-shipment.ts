import { CARRIER_REASON, crossesBorder, type Address, type Minor, type Parcel } from '../../domain/index.js';
import type { CarrierError } from '../types.js';
import { upsGoodsDescription, upsInternationalForms, upsParty, upsResidential, upsTaxInformation, type UpsTerms } from './mapping-international.js';
import { upsPackageOptions, upsSaturday, UPS_PRINT_RETURN_LABEL } from './mapping-options.js';
import { upsPackageMeasures } from './mapping-address.js';
import { upsAddress, upsMoney, UPS_SUBVERSION } from './mapping-rates.js';
import { documentedAnswer } from './answers.js';
import type { LabelRecovery, Shipments, Void } from './schemas/index.js';
import { upsCarrierServiceCode } from './services.js';

/** The request as UPS's document defines it (carriers/ups/schemas, generated). */
type ShipRequest = Shipments.SHIPRequestWrapper;
type LabelRecoveryRequest = LabelRecovery.LABELRECOVERYRequestWrapper;

export const UPS_SHIPPING_VERSION = 'v2409';
export const UPS_LABEL_RECOVERY_VERSION = 'v1';

/** The label UPS makes: a GIF image (from which the PDFs are made) or ZPL for thermal printers. */
export type UpsLabelRequestFormat = 'gif' | 'zpl';

export interface BoughtLabel {
  trackingNumber: string;
  label: { format: 'gif' | 'png' | 'pdf' | 'zpl'; contentBase64: string };
  /** What UPS says it bills, for reconciliation; null when the answer carries no charges. */
  billed: { amount: Minor; currency: string } | null;
  /** UPS's shipment identification number (the void path's key). */
  carrierShipmentId: string;
  /** The commercial invoice UPS drew (its `Form`), on shipments abroad. */
  documents?: Array<{ type: 'commercial_invoice'; format: 'pdf'; contentBase64: string }>;
}

export type CancelOutcome =
  | { kind: 'cancelled' }
  | { kind: 'refund_requested' }
  | { kind: 'refused'; reason: 'already_scanned' | 'not_cancellable'; message: string };

export interface UpsPurchaseInput extends UpsTerms {
  /** Our shipment id: the reference on the package, by which UPS tracking finds the purchase. */
  reference: string;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  labelFormat: UpsLabelRequestFormat;
  accountNumber: string;
}

/** US/US and PR/PR routes take references on the package; every other route on the shipment. */
function referenceOnPackage(from: Address, to: Address): boolean {
  const pair = `${from.country.toUpperCase()}/${to.country.toUpperCase()}`;
  return pair === 'US/US' || pair === 'PR/PR';
}

const LABEL_CODES = { gif: 'GIF', zpl: 'ZPL' } as const;
/** UPS's GIF comes as an image only when the user agent names a browser; its documented default. */
const HTTP_USER_AGENT = 'Mozilla/4.5';

/** `POST /shipments/v2409/ship`. Throws for a service not ours. */
export function buildShipRequest(input: UpsPurchaseInput): { path: string; body: ShipRequest } {
  const serviceCode = upsCarrierServiceCode(input.serviceCode);
  if (serviceCode === undefined) throw new Error(`not a UPS service: ${input.serviceCode}`);
  const m = upsPackageMeasures(input.parcel, input.from.country);
  const reference = [{ Value: input.reference }];
  const onPackage = referenceOnPackage(input.from, input.to);
  const abroad = crossesBorder(input.from, input.to);
  const customs = abroad ? input.customs : undefined;
  const bill = (type: '01' | '02') => ({ Type: type, BillShipper: { AccountNumber: input.accountNumber } });
  const shipTo = { ...upsParty(input.to, abroad), Address: { ...upsAddress(input.to), ...(upsResidential(input.to) ? { ResidentialAddressIndicator: '' } : {}) } };
  const serviceOptions = {
    ...upsSaturday(input.options),
    ...(customs ? { InternationalForms: upsInternationalForms({ reference: input.reference, to: input.to, customs, isReturn: input.isReturn === true, ...(input.at ? { at: input.at } : {}) }) } : {}),
  };
  const taxes = upsTaxInformation(customs?.tax_ids);
  const body: ShipRequest = {
    ShipmentRequest: {
      // `validate`: UPS checks city, state and postcode together, so a bad address fails here, not at delivery.
      Request: { RequestOption: 'validate', SubVersion: UPS_SUBVERSION },
      Shipment: {
        // Required abroad ("Description of Goods"): the declaration's lines.
        ...(customs ? { Description: upsGoodsDescription(customs) } : {}),
        // A return is billed to our account and goes back to `to`, its shipper; `from` (the customer) is where it leaves.
        ...(input.isReturn ? { ReturnService: { Code: UPS_PRINT_RETURN_LABEL } } : {}),
        Shipper: { ...upsParty(input.isReturn ? input.to : input.from, abroad), ShipperNumber: input.accountNumber, Address: upsAddress(input.isReturn ? input.to : input.from) },
        ShipTo: shipTo,
        ...(input.isReturn ? { ShipFrom: { ...shipFromParty(input.from, abroad), Address: upsAddress(input.from) } } : {}),
        // DDP: the duties and taxes are billed to our account too (ShipmentCharge type 02).
        PaymentInformation: { ShipmentCharge: customs?.incoterm === 'DDP' ? [bill('01'), bill('02')] : [bill('01')] },
        ...(taxes ? { GlobalTaxInformation: taxes } : {}),
        ...(Object.keys(serviceOptions).length ? { ShipmentServiceOptions: serviceOptions } : {}),
        ShipmentRatingOptions: { NegotiatedRatesIndicator: '' },
        ...(onPackage ? {} : { ReferenceNumber: reference }),
        Service: { Code: serviceCode },
        Package: [
          {
            Packaging: { Code: '02', Description: 'Customer Supplied Package' },
            Dimensions: {
              UnitOfMeasurement: { Code: m.units.length, Description: m.units.length === 'IN' ? 'Inches' : 'Centimeters' },
              Length: String(m.length),
              Width: String(m.width),
              Height: String(m.height),
            },
            PackageWeight: { UnitOfMeasurement: { Code: m.units.weight, Description: m.units.weight === 'LBS' ? 'Pounds' : 'Kilograms' }, Weight: m.weight },
            ...upsPackageOptions(input.options, input.currency, 'shipping'),
            ...(onPackage ? { ReferenceNumber: reference } : {}),
          },
        ],
      },
      LabelSpecification: {
        LabelImageFormat: { Code: LABEL_CODES[input.labelFormat] },
        ...(input.labelFormat === 'gif' ? { HTTPUserAgent: HTTP_USER_AGENT } : {}),
        // Required by the schema for every format; 4 × 6 inches is our label size.
        LabelStockSize: { Height: '6', Width: '4' },
      },
    },
  };
  return { path: `/shipments/${UPS_SHIPPING_VERSION}/ship`, body };
}

function labelFormat(code: string): BoughtLabel['label']['format'] | undefined {
  const format = code.toLowerCase();
  return format === 'gif' || format === 'png' || format === 'pdf' || format === 'zpl' ? format : undefined;
}

/** The bought label, or undefined when the answer is not the documented shape. */
export function parseShipResponse(body: unknown): BoughtLabel | undefined {
  const answer = documentedAnswer<Shipments.Response200>('shipments', body);
  if (!answer) return undefined;
  const results = answer.ShipmentResponse.ShipmentResults;
  const pkg = results.PackageResults?.[0];
  const image = pkg?.ShippingLabel;
  const format = image && labelFormat(image.ImageFormat.Code);
  if (!pkg || !image || !format || image.GraphicImage === '') return undefined;
  // The account's negotiated total is what UPS invoices when it is given; the published total otherwise.
  const billed = upsMoney(results.NegotiatedRateCharges?.TotalCharge) ?? upsMoney(results.ShipmentCharges?.TotalCharges) ?? null;
  const form = results.Form?.Image;
  const invoice = form && form.ImageFormat.Code.toUpperCase() === 'PDF' && form.GraphicImage !== '' ? form.GraphicImage : undefined;
  return {
    trackingNumber: pkg.TrackingNumber,
    label: { format, contentBase64: image.GraphicImage },
    billed,
    carrierShipmentId: results.ShipmentIdentificationNumber ?? pkg.TrackingNumber,
    ...(invoice ? { documents: [{ type: 'commercial_invoice' as const, format: 'pdf' as const, contentBase64: invoice }] } : {}),
  };
}

/** `DELETE /shipments/v2409/void/cancel/{shipmentidentificationnumber}` (no body). */
export function buildVoidRequest(carrierShipmentId: string): { method: 'DELETE'; path: string } {
  return { method: 'DELETE', path: `/shipments/${UPS_SHIPPING_VERSION}/void/cancel/${encodeURIComponent(carrierShipmentId)}` };
}

/** A 2xx void answer: status code 1 is "Voided" (or already voided); anything else was not voided. */
export function parseVoidResponse(body: unknown): CancelOutcome | undefined {
  const answer = documentedAnswer<Void.Response200>('void', body);
  if (!answer) return undefined;
  const status = answer.VoidShipmentResponse.SummaryResult.Status;
  if (status.Code === '1') return { kind: 'cancelled' };
  return { kind: 'refused', reason: 'not_cancellable', message: status.Description };
}

/** `POST /labels/v1/recovery`: the label of a package already bought, in another format. */
export function buildLabelRecoveryRequest(input: {
  trackingNumber: string;
  reference: string;
  accountNumber: string;
  labelFormat: UpsLabelRequestFormat;
}): { path: string; body: LabelRecoveryRequest } {
  return {
    path: `/labels/${UPS_LABEL_RECOVERY_VERSION}/recovery`,
    body: {
      LabelRecoveryRequest: {
        Request: {},
        LabelSpecification: {
          ...(input.labelFormat === 'gif' ? { HTTPUserAgent: HTTP_USER_AGENT } : {}),
          LabelImageFormat: { Code: LABEL_CODES[input.labelFormat] },
          ...(input.labelFormat === 'zpl' ? { LabelStockSize: { Height: '6' as const, Width: '4' as const } } : {}),
        },
        TrackingNumber: input.trackingNumber,
        TrackingNumbers: [input.trackingNumber],
        ReferenceValues: { ReferenceNumber: { Value: input.reference }, ShipperNumber: input.accountNumber },
      },
    },
  };
}

/** The recovered label of that tracking number, or undefined when the answer is not the documented shape. */
export function parseLabelRecoveryResponse(body: unknown, trackingNumber: string): BoughtLabel['label'] | undefined {
  const answer = documentedAnswer<LabelRecovery.Response200>('label-recovery', body);
  if (!answer) return undefined;
  const results = answer.LabelRecoveryResponse.LabelResults ?? [];
  const result = results.find((r) => r.TrackingNumber === trackingNumber) ?? (results.length === 1 ? results[0] : undefined);
  const image = result?.LabelImage;
  const format = image && labelFormat(image.LabelImageFormat.Code);
  if (!image || !format || image.GraphicImage === '') return undefined;
  return { format, contentBase64: image.GraphicImage };
}

/**
 * A void's failure, as the client classified it, as a cancellation outcome: a refusal is an answer;
 * undefined for a fault to retry, or a refusal of our credentials rather than of the void.
 */
export function cancelOutcomeFromError(error: CarrierError): CancelOutcome | undefined {
  const status = error.details.status;
  if (error.kind !== 'definitive' || status === undefined || status === 401 || status === 403) return undefined;
  return { kind: 'refused', reason: error.details.reason === CARRIER_REASON.alreadyScanned ? 'already_scanned' : 'not_cancellable', message: error.message };
}

/** The customer a return leaves from: UPS's ShipFrom defines no `EMailAddress` (Shipper and ShipTo do). */
function shipFromParty(address: Address, abroad: boolean) {
  const { EMailAddress: _email, ...party } = upsParty(address, abroad);
  return party;
}
