import type { LabelArt } from '../label-art.js';
import { labelFile } from '../label-files.js';
import { invoicePdf, optionRefusal, shipRefusal } from './abroad.js';
import { SERVICE_NAMES, UNAVAILABLE, UPS_ERROR, billingWeight, charges, offered, price } from './rating.js';
import { isScanned, money, trackingNumber, type SimExtraScan, type SimPackage, type SimScanStep } from './state.js';

/** The UPS simulator's Shipping answers: ship, void and label recovery, with the label files they carry. */

export interface UpsBooks {
  account: string;
  clock: () => number;
  schedule: SimScanStep[];
  packages: Map<string, SimPackage>;
  nextSerial(): number;
  /** Scans reported from outside the schedule; they count as UPS having the package. */
  extraScans(trackingNumber: string): SimExtraScan[];
  onPurchase?(pkg: SimPackage): void;
  onVoid?(pkg: SimPackage): void;
}

const SUCCESS = { ResponseStatus: { Code: '1', Description: 'Success' } };
/**
 * UPS documents no error for voiding a package it has scanned. This simulator refuses it as the
 * live service does a void past pickup: a 400 in UPS's error body, its words saying why.
 */
const VOID_AFTER_SCAN = UPS_ERROR('190117', 'The package has already been picked up and is in transit; it cannot be voided.');

function addressLines(party: any): string[] {
  const a = party?.Address ?? {};
  const street: unknown[] = Array.isArray(a.AddressLine) ? a.AddressLine : a.AddressLine ? [a.AddressLine] : [];
  const place = [a.City, a.StateProvinceCode, a.PostalCode].filter(Boolean).join(' ');
  const names = [party?.Name, party?.AttentionName && party.AttentionName !== party.Name ? party.AttentionName : undefined];
  return [...names, ...street, place, a.CountryCode].filter((v): v is string => typeof v === 'string' && v !== '').map((v) => v.toUpperCase());
}

export async function ship(books: UpsBooks, body: any): Promise<[number, unknown]> {
  const request = body.ShipmentRequest;
  const shipment = request.Shipment;
  const service = shipment.Service.Code;
  if (!offered(shipment).includes(service)) return [400, UNAVAILABLE];
  if (shipment.Shipper.ShipperNumber !== books.account) return [400, UPS_ERROR('120100', 'Missing or invalid shipper number')];
  const refusal = shipRefusal(shipment) ?? optionRefusal(service, shipment);
  if (refusal) return [400, UPS_ERROR('120218', refusal)];
  const p = price(service, shipment);
  const number = trackingNumber(books.account, service, books.nextSerial());
  const references: string[] = [...(shipment.ReferenceNumber ?? []), ...(shipment.Package[0].ReferenceNumber ?? [])].map((r: { Value: string }) => r.Value);
  const art: LabelArt = {
    carrier: 'UPS',
    service: SERVICE_NAMES[service] ?? `UPS ${service}`,
    trackingNumber: number,
    from: addressLines(shipment.ShipFrom ?? shipment.Shipper),
    to: addressLines(shipment.ShipTo),
    weight: `${p.billed} ${p.unit}`,
    reference: references[0] ?? '',
  };
  const pkg: SimPackage = {
    trackingNumber: number,
    references,
    serviceCode: service,
    createdAt: books.clock(),
    voidedAt: null,
    originCountry: shipment.Shipper.Address.CountryCode,
    total: { currency: p.currency, published: money(p.published), negotiated: p.negotiated === null ? null : money(p.negotiated) },
    billingWeight: { unit: p.unit, value: `${p.billed}.0` },
    art,
  };
  books.packages.set(number, pkg);
  books.onPurchase?.(pkg);
  const label = await shippingLabel(art, request.LabelSpecification.LabelImageFormat.Code);
  const forms = shipment.ShipmentServiceOptions?.InternationalForms;
  const form = forms ? { Form: { Code: '01', Description: 'All Requested International Forms', Image: { ImageFormat: { Code: 'PDF', Description: 'PDF' }, GraphicImage: await invoicePdf(shipment, number) } } } : {};
  return [
    200,
    {
      ShipmentResponse: {
        Response: SUCCESS,
        ShipmentResults: {
          ShipmentCharges: {
            TransportationCharges: charges(p.currency, p.published),
            ServiceOptionsCharges: charges(p.currency, p.options),
            TotalCharges: charges(p.currency, p.published),
          },
          ...(p.negotiated === null ? {} : { NegotiatedRateCharges: { TotalCharge: charges(p.currency, p.negotiated) } }),
          // The document gives the billing weight as exactly 8 characters.
          BillingWeight: { ...billingWeight(p.unit, p.billed), Weight: `${p.billed}.0`.padStart(8, ' ') },
          ShipmentIdentificationNumber: number,
          ...form,
          PackageResults: [{ TrackingNumber: number, ServiceOptionsCharges: charges(p.currency, 0), ShippingLabel: label }],
        },
      },
    },
  ];
}

/** A 4 × 6 GIF image as UPS sends by default (with the HTML page that shows it), or ZPL when asked. */
async function shippingLabel(art: LabelArt, format: string) {
  if (format === 'ZPL') return { ImageFormat: { Code: 'ZPL', Description: 'ZPL' }, GraphicImage: await labelFile(art, 'ZPL') };
  const html = `<html><head><title>View/Print Label</title></head><body><img src="label${art.trackingNumber}.gif" width="400" height="600"></body></html>`;
  return { ImageFormat: { Code: 'GIF', Description: 'GIF' }, GraphicImage: await labelFile(art, 'GIF'), HTMLImage: Buffer.from(html).toString('base64') };
}

export function voidShipment(books: UpsBooks, id: string): [number, unknown] {
  const pkg = books.packages.get(id);
  if (!pkg) return [400, UPS_ERROR('190102', 'No shipment found within the allowed void period')];
  const now = books.clock();
  if (pkg.voidedAt === null) {
    if (isScanned(pkg, books.schedule, now, books.extraScans(pkg.trackingNumber))) return [400, VOID_AFTER_SCAN];
    pkg.voidedAt = now;
    books.onVoid?.(pkg);
  }
  // "1 = Voided or Already Voided".
  return [
    200,
    {
      VoidShipmentResponse: {
        Response: SUCCESS,
        SummaryResult: { Status: { Code: '1', Description: 'Voided' } },
        PackageLevelResults: [{ TrackingNumber: pkg.trackingNumber, Status: { Code: '1', Description: 'Voided' } }],
      },
    },
  ];
}

export async function recover(books: UpsBooks, body: any): Promise<[number, unknown]> {
  const request = body.LabelRecoveryRequest;
  const pkg = books.packages.get(request.TrackingNumber);
  if (!pkg || pkg.voidedAt !== null) return [400, UPS_ERROR('120535', 'No label found for the tracking number')];
  const image = await shippingLabel(pkg.art, request.LabelSpecification.LabelImageFormat.Code);
  return [
    200,
    {
      LabelRecoveryResponse: {
        Response: SUCCESS,
        ShipmentIdentificationNumber: pkg.trackingNumber,
        LabelResults: [{ TrackingNumber: pkg.trackingNumber, LabelImage: { LabelImageFormat: { Code: image.ImageFormat.Code }, GraphicImage: image.GraphicImage } }],
      },
    },
  ];
}
