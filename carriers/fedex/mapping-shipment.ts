import { crossesBorder, type Address, type Minor, type Parcel } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { ShipmentTerms } from '../types.js';
import { fedexPackage, fedexParty, fedexUnits } from './mapping-address.js';
import { FEDEX_INVOICE_DOCUMENT, fedexCustomsClearance, fedexTins } from './mapping-international.js';
import { fedexPackageOptions, fedexShipmentServices } from './mapping-options.js';
import { FEDEX_PACKAGING, FEDEX_PICKUP_TYPE, minorOf } from './mapping-rates.js';
import type { Shipments, ShipmentsCancel } from './schemas/index.js';
import { fedexServiceType } from './services.js';

export const FEDEX_SHIP_PATH = '/ship/v1/shipments';
export const FEDEX_CANCEL_PATH = '/ship/v1/shipments/cancel';

/** The label image FedEx makes: a PNG on 4 × 6 in paper (the PDFs come from it; adapter.ts says why). */
export const FEDEX_LABEL = { imageType: 'PNG', labelStockType: 'PAPER_4X6' } as const;

export interface FedexShipInput extends ShipmentTerms {
  /** Our shipment id: the package's customer reference, by which Track finds the purchase. */
  reference: string;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  accountNumber: string;
  /** The account's currency, which a declared value is in. */
  currency?: string;
  /** The purchase's instant (ISO 8601): the ship date, the same on every attempt. */
  at?: string;
}

export interface FedexLabel {
  trackingNumber: string;
  /** FedEx's master tracking number: what the cancel takes. */
  carrierShipmentId: string;
  label: { format: 'png' | 'pdf' | 'zpl'; contentBase64: string };
  billed: { amount: Minor; currency: string } | null;
  documents?: Array<{ type: 'commercial_invoice'; format: 'pdf'; contentBase64: string }>;
}

/**
 * FedEx wants a sub-packaging type "for all shipments inbound to Canada (CA) and inbound shipments
 * to the U.S. and Puerto Rico (PR) from Canada and Mexico": our parcels are cartons.
 */
export function fedexSubPackaging(from: Address, to: Address): { subPackagingType?: 'CARTON' } {
  const origin = from.country.toUpperCase();
  const destination = to.country.toUpperCase();
  const needed = (destination === 'CA' && origin !== 'CA') || ((destination === 'US' || destination === 'PR') && (origin === 'CA' || origin === 'MX'));
  return needed ? { subPackagingType: 'CARTON' } : {};
}

/**
 * `POST /ship/v1/shipments`: one package with our shipment id as its CUSTOMER_REFERENCE, the label
 * returned in the answer (`labelResponseOptions` LABEL), and abroad the customs and FedEx's
 * commercial invoice. A return is shipped by the customer (`from`) to us (`to`) with FedEx's
 * PRINT_RETURN_LABEL, billed to our account like any label. Throws for a service not ours.
 */
export function buildShipRequest(input: FedexShipInput) {
  const serviceType = fedexServiceType(input.serviceCode);
  if (serviceType === undefined) throw new Error(`not a FedEx service: ${input.serviceCode}`);
  const units = fedexUnits(input.from, input.to);
  const pkg = fedexPackage(input.parcel, units);
  const customs = crossesBorder(input.from, input.to) ? input.customs : undefined;
  return {
    labelResponseOptions: 'LABEL',
    accountNumber: { value: input.accountNumber },
    requestedShipment: {
      shipDatestamp: (input.at ?? new Date().toISOString()).slice(0, 10),
      pickupType: FEDEX_PICKUP_TYPE,
      serviceType,
      packagingType: FEDEX_PACKAGING,
      totalWeight: pkg.weight.value,
      shipper: { ...fedexParty(input.from), ...fedexTins(customs?.tax_ids, 'sender') },
      recipients: [{ ...fedexParty(input.to), ...fedexTins(customs?.tax_ids, 'recipient') }],
      shippingChargesPayment: { paymentType: 'SENDER' },
      ...fedexShipmentServices(input.options, input.isReturn),
      ...(customs ? { customsClearanceDetail: fedexCustomsClearance({ reference: input.reference, from: input.from, customs }) } : {}),
      ...(customs ? { shippingDocumentSpecification: FEDEX_INVOICE_DOCUMENT } : {}),
      labelSpecification: FEDEX_LABEL,
      totalPackageCount: 1,
      requestedPackageLineItems: [
        {
          ...fedexSubPackaging(input.from, input.to),
          customerReferences: [{ customerReferenceType: 'CUSTOMER_REFERENCE' as const, value: input.reference }],
          ...pkg,
          ...fedexPackageOptions(input.options, input.currency),
        },
      ],
    },
  } satisfies Shipments.Request;
}

const LABEL_FORMATS: Record<string, FedexLabel['label']['format']> = { PNG: 'png', PDF: 'pdf', ZPLII: 'zpl' };

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** What FedEx says it bills: the rate details of its actual rate type, else the first. */
function billedOf(shipment: Record<string, unknown>): FedexLabel['billed'] {
  const completed = isRecord(shipment.completedShipmentDetail) ? shipment.completedShipmentDetail : {};
  const rating = isRecord(completed.shipmentRating) ? completed.shipmentRating : {};
  const details = records(rating.shipmentRateDetails);
  const detail = details.find((d) => d.rateType === rating.actualRateType) ?? details[0];
  const amount = detail && minorOf(detail.totalNetCharge);
  const currency = detail?.currency;
  return amount !== undefined && typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? { amount, currency } : null;
}

/** The bought label and FedEx's invoice, or undefined when the answer has no label we can read. */
export function parseShipResponse(body: unknown): FedexLabel | undefined {
  if (!isRecord(body) || !isRecord(body.output)) return undefined;
  const shipment = records(body.output.transactionShipments)[0];
  const piece = shipment && records(shipment.pieceResponses)[0];
  if (!shipment || !piece || typeof piece.trackingNumber !== 'string' || piece.trackingNumber === '') return undefined;
  const document = records(piece.packageDocuments).find((d) => d.contentType === 'LABEL' && typeof d.encodedLabel === 'string' && d.encodedLabel !== '');
  const format = document && typeof document.docType === 'string' ? LABEL_FORMATS[document.docType.toUpperCase()] : undefined;
  if (!document || !format) return undefined;
  const invoice = records(shipment.shipmentDocuments).find((d) => d.contentType === 'COMMERCIAL_INVOICE' && typeof d.encodedLabel === 'string' && d.encodedLabel !== '');
  const master = typeof shipment.masterTrackingNumber === 'string' && shipment.masterTrackingNumber !== '' ? shipment.masterTrackingNumber : piece.trackingNumber;
  return {
    trackingNumber: piece.trackingNumber,
    carrierShipmentId: master,
    label: { format, contentBase64: document.encodedLabel as string },
    billed: billedOf(shipment),
    ...(invoice ? { documents: [{ type: 'commercial_invoice' as const, format: 'pdf' as const, contentBase64: invoice.encodedLabel as string }] } : {}),
  };
}

/** `PUT /ship/v1/shipments/cancel`: every package of the shipment with that (master) tracking number. */
export function buildCancelRequest(p: { accountNumber: string; trackingNumber: string }) {
  return { accountNumber: { value: p.accountNumber }, trackingNumber: p.trackingNumber, deletionControl: 'DELETE_ALL_PACKAGES' } satisfies ShipmentsCancel.Request;
}

/** Whether FedEx cancelled it, with its words; undefined when the answer is not one. */
export function parseCancelResponse(body: unknown): { cancelled: boolean; message: string } | undefined {
  if (!isRecord(body) || !isRecord(body.output) || typeof body.output.cancelledShipment !== 'boolean') return undefined;
  const message = typeof body.output.message === 'string' ? body.output.message : '';
  return { cancelled: body.output.cancelledShipment, message };
}
