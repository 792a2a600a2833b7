import { parseAmount, type Address, type Customs, type Parcel, type ShipmentOptions } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { Shipments } from './schemas/index.js';
import type { AddressProblem, CarrierMoney, LabelDocument } from '../types.js';
import { dhlPackage, dhlParty, dhlPlannedShipping } from './mapping-address.js';
import { DHL_INSURANCE_SERVICE } from './mapping-rates.js';
import { dhlProductCode, dhlRoute, isCustomsDeclarable } from './services.js';

/** `POST /shipments` (exp-api-shipments): the shipment request, and the label and invoice it answers. */
export const DHL_SHIPMENTS_PATH = '/shipments';

/**
 * DHL's default transport label, 4 × 8 in. The document offers no 4 × 6 template for a standard
 * shipment (its 6 × 4 one, ECOM26_64_LBBX_001, is for loose break-bulk only), so this one is asked
 * for by name and our files fit it onto their page (labels/: the contract's Carriers section).
 */
export const DHL_LABEL_TEMPLATE = 'ECOM26_84_001';
/** The document's default commercial invoice, portrait, shipper and receiver on it. */
export const DHL_INVOICE_TEMPLATE = 'COMMERCIAL_INVOICE_P_10';

export interface DhlShipmentInput {
  /** Our shipment id: the shipment's customer reference (`CU`), by which DHL's tracking finds it. */
  reference: string;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  customs?: Customs;
  options?: ShipmentOptions;
  /** The account's currency, which a declared value is in. */
  currency?: string;
  accountNumber: string;
  /** When the purchase was asked for: the same on every attempt, so its dates are too. */
  at: Date;
}

/** Our tax-id types as DHL's registration number types; DHL has none for IOSS or "other". */
const REGISTRATION_TYPES: Record<string, 'EOR' | 'VAT' | 'EIN' | undefined> = { eori: 'EOR', vat: 'VAT', ein: 'EIN' };

/** Our contents types as DHL's export reasons. */
const EXPORT_REASONS = {
  merchandise: 'commercial_purpose_or_sale',
  gift: 'gift',
  documents: 'permanent',
  sample: 'sample',
  returned_goods: 'return',
  other: 'permanent',
} as const;

/** What of a purchase DHL cannot take (beyond addresses): tax ids of types it has no code for. */
export function dhlCustomsProblems(customs: Customs | undefined): AddressProblem[] {
  return (customs?.tax_ids ?? []).flatMap((id, i) =>
    REGISTRATION_TYPES[id.type] ? [] : [{ path: `customs.tax_ids[${i}].type`, message: 'DHL Express takes EORI, VAT and EIN numbers only' }],
  );
}

function money(text: string): number {
  return (parseAmount(text) ?? 0) / 100;
}

function registrations(customs: Customs | undefined, owner: 'sender' | 'recipient', country: string) {
  const numbers = (customs?.tax_ids ?? [])
    .filter((id) => id.owner === owner && REGISTRATION_TYPES[id.type])
    .map((id) => ({ typeCode: REGISTRATION_TYPES[id.type]!, number: id.number, issuerCountryCode: country.toUpperCase() }));
  return numbers.length ? { registrationNumbers: numbers } : {};
}

/** The export declaration of a dutiable shipment: one line per item, the invoice DHL prints. */
function exportDeclaration(input: DhlShipmentInput, customs: Customs) {
  const reason = EXPORT_REASONS[customs.contents_type];
  return {
    lineItems: customs.items.map((item, i) => ({
      number: i + 1,
      description: item.description,
      // DHL's price is per unit; ours is the line's total.
      price: Math.round((money(item.value) / item.quantity) * 100) / 100,
      quantity: { value: item.quantity, unitOfMeasurement: 'PCS' as const },
      ...(item.hs_tariff_number ? { commodityCodes: [{ typeCode: 'outbound' as const, value: item.hs_tariff_number }] } : {}),
      exportReasonType: reason,
      manufacturerCountry: item.origin_country,
      weight: { netValue: item.weight_g / 1_000, grossValue: item.weight_g / 1_000 },
    })),
    // The contract lets the invoice number be left out: ours is then the shipment id.
    invoice: { number: customs.invoice_number ?? input.reference, date: input.at.toISOString().slice(0, 10), signatureName: customs.signer },
    ...(customs.contents_type === 'other' && customs.contents_explanation ? { exportReason: customs.contents_explanation } : {}),
    exportReasonType: reason,
    shipmentType: customs.contents_type === 'gift' ? ('personal' as const) : ('commercial' as const),
  };
}

/** The request body of a purchase; throws for a service that does not go on the route (checked before). */
export function buildDhlShipmentRequest(input: DhlShipmentInput) {
  return shipmentRequest(input) satisfies Shipments.Request;
}

function shipmentRequest(input: DhlShipmentInput) {
  const route = dhlRoute(input.from.country, input.to.country);
  const productCode = dhlProductCode(input.serviceCode, route);
  if (productCode === undefined) throw new Error(`${input.serviceCode} does not go from ${input.from.country} to ${input.to.country}`);
  const declarable = isCustomsDeclarable(route);
  const customs = input.customs;
  const insured = input.options?.declared_value;
  const ddp = customs?.incoterm === 'DDP';
  return {
    plannedShippingDateAndTime: dhlPlannedShipping(input.at),
    pickup: { isRequested: false },
    productCode,
    accounts: [
      { typeCode: 'shipper' as const, number: input.accountNumber },
      // Delivered duty paid: the duties and taxes are billed to our account, not the receiver.
      ...(ddp ? [{ typeCode: 'duties-taxes' as const, number: input.accountNumber }] : []),
    ],
    ...(insured && input.currency ? { valueAddedServices: [{ serviceCode: DHL_INSURANCE_SERVICE, value: money(insured), currency: input.currency }] } : {}),
    outputImageProperties: {
      encodingFormat: 'pdf' as const,
      imageOptions: [
        { typeCode: 'label' as const, templateName: DHL_LABEL_TEMPLATE },
        // The waybill document is DHL's archive copy: not a label, so not asked for.
        { typeCode: 'waybillDoc' as const, isRequested: false },
        ...(declarable ? [{ typeCode: 'invoice' as const, templateName: DHL_INVOICE_TEMPLATE, isRequested: true, invoiceType: 'commercial' as const }] : []),
      ],
      splitTransportAndWaybillDocLabels: true,
    },
    customerReferences: [{ value: input.reference, typeCode: 'CU' as const }],
    customerDetails: {
      shipperDetails: { ...dhlParty(input.from), ...registrations(customs, 'sender', input.from.country) },
      receiverDetails: { ...dhlParty(input.to), ...registrations(customs, 'recipient', input.to.country) },
    },
    content: {
      packages: [dhlPackage(input.parcel)],
      isCustomsDeclarable: declarable,
      ...(declarable && customs
        ? {
            declaredValue: Math.round(customs.items.reduce((sum, item) => sum + money(item.value), 0) * 100) / 100,
            declaredValueCurrency: customs.currency,
            exportDeclaration: exportDeclaration(input, customs),
          }
        : {}),
      description: customs?.items[0]?.description ?? 'Parcel',
      ...(declarable && customs?.eel_pfc && input.from.country.toUpperCase() === 'US' ? { USFilingTypeValue: customs.eel_pfc } : {}),
      // DHL requires an incoterm on every shipment: the customs' one, else delivered at place.
      incoterm: (customs?.incoterm ?? 'DAP') as 'DDU' | 'DDP' | 'DAP',
      unitOfMeasurement: 'metric' as const,
    },
  };
}


export interface DhlCreatedShipment {
  trackingNumber: string;
  label: LabelDocument;
  invoice: string | null;
  billed: CarrierMoney | null;
}

/** The created shipment: its waybill, its label PDF and invoice PDF; undefined when the answer lacks them. */
export function parseDhlShipmentResponse(body: unknown): DhlCreatedShipment | undefined {
  if (!isRecord(body) || typeof body.shipmentTrackingNumber !== 'string' || body.shipmentTrackingNumber === '') return undefined;
  const documents = [
    ...(Array.isArray(body.documents) ? body.documents : []),
    ...(Array.isArray(body.packages) ? body.packages.flatMap((p) => (isRecord(p) && Array.isArray(p.documents) ? p.documents : [])) : []),
  ].filter(isRecord);
  const pdf = (typeCode: string) =>
    documents.find((d) => d.typeCode === typeCode && typeof d.content === 'string' && d.content !== '' && String(d.imageFormat).toUpperCase() === 'PDF')?.content as string | undefined;
  const label = pdf('label');
  if (!label) return undefined;
  return { trackingNumber: body.shipmentTrackingNumber, label: { format: 'pdf', contentBase64: label }, invoice: pdf('invoice') ?? null, billed: billedOf(body.shipmentCharges) };
}

/** What DHL says it bills, in the billing currency (`BILLC`); null when it does not say. */
function billedOf(charges: unknown): CarrierMoney | null {
  if (!Array.isArray(charges)) return null;
  const billing = charges.filter(isRecord).find((c) => c.currencyType === 'BILLC' && typeof c.price === 'number' && typeof c.priceCurrency === 'string');
  return billing ? { amount: Math.round((billing.price as number) * 100), currency: billing.priceCurrency as string } : null;
}
