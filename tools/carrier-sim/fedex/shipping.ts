import type { LabelArt } from '../label-art.js';
import { invoicePdf, labelDocument, partyLines } from './documents.js';
import { FEDEX_ERROR, offered, optionRefusal, price, SERVICE_NAMES, UNAVAILABLE } from './rating.js';
import { isTendered, trackingNumber, units, type FedexExtraScan, type FedexScanStep, type FedexSimPackage } from './state.js';

/** The FedEx simulator's Ship answers: create and cancel, with the label and invoice they carry. */

export interface FedexBooks {
  account: string;
  clock: () => number;
  schedule: readonly FedexScanStep[];
  packages: Map<string, FedexSimPackage>;
  nextSerial(): number;
  /** Scans reported from outside the schedule; they count as FedEx having the package. */
  extraScans(trackingNumber: string): FedexExtraScan[];
  onPurchase?(pkg: FedexSimPackage): void;
  onCancel?(pkg: FedexSimPackage): void;
}

const blank = (v: unknown) => typeof v !== 'string' || v.trim() === '';
const TEN_DIGITS = new Set(['US', 'CA', 'PR']);

/** Why FedEx would refuse a party's phone (Ship `phoneNumber`), or null. */
function phoneRefusal(party: any, role: string): string | null {
  const phone: string = party.contact?.phoneNumber ?? '';
  const country = party.address?.countryCode;
  if (!/^\d+$/.test(phone)) return `The ${role}'s phone number is required and must be digits.`;
  if (TEN_DIGITS.has(country) ? phone.length !== 10 : phone.length < 10 || phone.length > 15) return `The ${role}'s phone number has the wrong number of digits.`;
  return null;
}

/** Why FedEx would refuse this shipment as the documents' descriptions state, or null. */
export function shipRefusal(shipment: any): string | null {
  const recipient = shipment.recipients[0];
  const refusal = phoneRefusal(shipment.shipper, 'shipper') ?? phoneRefusal(recipient, 'recipient');
  if (refusal) return refusal;
  const origin = shipment.shipper.address.countryCode;
  const destination = recipient.address.countryCode;
  const pkg = shipment.requestedPackageLineItems[0];
  if (destination === 'CA' && origin !== 'CA' && blank(pkg.subPackagingType)) return 'subPackagingType is mandatory for shipments to Canada.';
  const customs = shipment.customsClearanceDetail;
  if (origin === destination) return customs ? 'Customs clearance details are not valid on a domestic shipment.' : null;
  if (!customs) return 'Customs clearance details are required for international shipments.';
  if (!customs.dutiesPayment?.paymentType) return 'The duties payment is required for international shipments.';
  for (const c of customs.commodities) {
    if (blank(c.countryOfManufacture)) return 'The commodity country of manufacture is required for international shipments.';
    if (c.weight && c.weight.units !== pkg.weight.units) return 'The package and commodity weight unit should be the same.';
  }
  return null;
}

function artOf(shipment: any, number: string, weight: string): LabelArt {
  const reference = shipment.requestedPackageLineItems[0].customerReferences?.find((r: any) => r.customerReferenceType === 'CUSTOMER_REFERENCE')?.value ?? '';
  return { carrier: 'FedEx', service: SERVICE_NAMES[shipment.serviceType] ?? shipment.serviceType, trackingNumber: number, from: partyLines(shipment.shipper), to: partyLines(shipment.recipients[0]), weight, reference };
}

function packageOf(books: FedexBooks, shipment: any, number: string): FedexSimPackage {
  const pkg = shipment.requestedPackageLineItems[0];
  const place = (party: any) => ({ city: party.address.city, postalCode: party.address.postalCode ?? '', countryCode: party.address.countryCode });
  return {
    trackingNumber: number,
    references: (pkg.customerReferences ?? []).filter((r: any) => r.customerReferenceType === 'CUSTOMER_REFERENCE').map((r: any) => r.value),
    serviceType: shipment.serviceType,
    account: books.account,
    createdAt: books.clock(),
    cancelledAt: null,
    origin: place(shipment.shipper),
    destination: place(shipment.recipients[0]),
    art: artOf(shipment, number, `${pkg.weight.value} ${pkg.weight.units}`),
  };
}

export async function ship(books: FedexBooks, body: any): Promise<[number, unknown]> {
  if (body.accountNumber.value !== books.account) return [400, FEDEX_ERROR('ACCOUNTNUMBER.REGISTRATION.REQUIRED', 'Please enter a valid 9-digit FedEx account number or register for a new FedEx account number.')];
  const shipment = body.requestedShipment;
  if (!offered(shipment).includes(shipment.serviceType)) return [400, UNAVAILABLE];
  const refusal = shipRefusal(shipment) ?? optionRefusal(shipment.serviceType, shipment);
  if (refusal) return [400, FEDEX_ERROR('SHIPMENT.VALIDATION.FAILED', refusal)];
  const p = price(shipment.serviceType, shipment);
  const number = trackingNumber(books.nextSerial());
  const pkg = packageOf(books, shipment, number);
  books.packages.set(number, pkg);
  books.onPurchase?.(pkg);
  const label = await labelDocument(pkg.art, shipment.labelSpecification.imageType);
  const wantsInvoice = (shipment.shippingDocumentSpecification?.shippingDocumentTypes ?? []).includes('COMMERCIAL_INVOICE') && shipment.customsClearanceDetail;
  const invoice = wantsInvoice ? [{ contentType: 'COMMERCIAL_INVOICE', copiesToPrint: 1, docType: 'PDF', trackingNumber: number, encodedLabel: await invoicePdf(shipment, number) }] : [];
  const net = units(p.account);
  return [
    200,
    {
      transactionId: 'sim-fedex',
      output: {
        transactionShipments: [
          {
            serviceType: shipment.serviceType,
            shipDatestamp: shipment.shipDatestamp,
            serviceName: SERVICE_NAMES[shipment.serviceType],
            masterTrackingNumber: number,
            shipmentDocuments: invoice,
            pieceResponses: [
              {
                trackingNumber: number,
                masterTrackingNumber: number,
                netChargeAmount: net,
                customerReferences: shipment.requestedPackageLineItems[0].customerReferences ?? [],
                packageDocuments: [{ contentType: 'LABEL', copiesToPrint: 1, docType: shipment.labelSpecification.imageType, encodedLabel: label }],
              },
            ],
            completedShipmentDetail: {
              usDomestic: pkg.origin.countryCode === 'US' && pkg.destination.countryCode === 'US',
              carrierCode: shipment.serviceType.includes('GROUND') ? 'FDXG' : 'FDXE',
              shipmentRating: { actualRateType: 'PAYOR_ACCOUNT_SHIPMENT', shipmentRateDetails: [{ rateType: 'PAYOR_ACCOUNT_SHIPMENT', totalNetCharge: net, currency: p.currency }] },
            },
          },
        ],
      },
    },
  ];
}

/**
 * Cancel: "cancel FedEx Express and Ground shipments that have not already been tendered to FedEx".
 * A tendered one is answered `cancelledShipment: false` with FedEx's words; an unknown number is the
 * document's TRACKINGNUMBER.ENTERED.INVALID; a second cancel answers as the first.
 */
export function cancelShipment(books: FedexBooks, body: any): [number, unknown] {
  if (body.accountNumber.value !== books.account) return [400, FEDEX_ERROR('SHIPMENT.USER.UNAUTHORIZED', 'Requested user is not authorized to perform the operation.')];
  const pkg = books.packages.get(body.trackingNumber);
  if (!pkg) return [400, FEDEX_ERROR('TRACKINGNUMBER.ENTERED.INVALID', 'Error with entered Tracking Number. Please verify the entered Tracking Number.')];
  const answer = (cancelledShipment: boolean, message: string) => [200, { transactionId: 'sim-fedex', output: { cancelledShipment, cancelledHistory: cancelledShipment, message } }] as [number, unknown];
  if (pkg.cancelledAt !== null) return answer(true, 'Shipment is successfully cancelled');
  if (isTendered(pkg, books.schedule, books.clock(), books.extraScans(pkg.trackingNumber))) return answer(false, 'The shipment has already been tendered to FedEx and cannot be cancelled.');
  pkg.cancelledAt = books.clock();
  books.onCancel?.(pkg);
  return answer(true, 'Shipment is successfully cancelled');
}
