import { dhlRoute, isCustomsDeclarable, ourDhlServiceCode } from '../../../carriers/dhl-express/services.js';
import { simInvoicePdf, simLabelPdf } from './documents.js';
import { checkpointsAt, waybill, type SimCheckpointStep, type SimDhlExtraCheckpoint, type SimDhlPickup, type SimDhlShipment } from './state.js';

/** What the operations share: the account, the clock, the books and the checkpoint schedule. */
export interface DhlBooks {
  account: string;
  clock: () => number;
  schedule: readonly SimCheckpointStep[];
  shipments: Map<string, SimDhlShipment>;
  pickups: Map<string, SimDhlPickup>;
  nextSerial: () => number;
  extraCheckpoints: (trackingNumber: string) => SimDhlExtraCheckpoint[];
  onPurchase?: (shipment: SimDhlShipment) => void;
}

/** DHL's error body (RFC 7807-like), `status` as a string as DHL sends it. */
export function dhlError(status: number, title: string, detail: string, instance = '/expressapi'): { instance: string; detail: string; title: string; message: string; status: string } {
  return { instance, detail, title, message: title, status: String(status) };
}

export type Answer = [number, unknown];

const PRODUCT_NAMES: Record<string, string> = {
  P: 'EXPRESS WORLDWIDE', U: 'EXPRESS WORLDWIDE', H: 'ECONOMY SELECT', W: 'ECONOMY SELECT', Y: 'EXPRESS 12:00', E: 'EXPRESS 9:00', N: 'DOMESTIC EXPRESS',
};
/** The products the account is offered on a route, as DHL names them by customs status. */
const ROUTE_PRODUCTS = { domestic: ['N'], within_eu: ['U', 'W'], dutiable: ['P', 'H', 'Y', 'E'] } as const;
/** Price per product: a base and a price per started kilogram, in minor units of the origin's currency. */
const TARIFF: Record<string, { base: number; perKg: number; days: number }> = {
  N: { base: 1_450, perKg: 190, days: 1 }, U: { base: 2_100, perKg: 300, days: 2 }, W: { base: 1_600, perKg: 220, days: 4 },
  P: { base: 2_400, perKg: 350, days: 2 }, H: { base: 1_800, perKg: 250, days: 4 }, Y: { base: 3_600, perKg: 420, days: 1 }, E: { base: 5_200, perKg: 560, days: 1 },
};
const CURRENCIES: Record<string, string> = { GB: 'GBP', US: 'USD', CA: 'CAD', CH: 'CHF', JP: 'JPY' };

const currencyOf = (country: string) => CURRENCIES[country] ?? 'EUR';

/** Shipment insurance (service II): 1 % of the value insured, at least 5.00. */
function insurance(services: unknown): number {
  const insured = Array.isArray(services) ? services.find((v) => rec(v).serviceCode === 'II') : undefined;
  return insured ? Math.max(500, Math.ceil(Number(rec(insured).value) * 100 * 0.01)) : 0;
}

function price(productCode: string, weightKg: number, volumetricKg: number, services?: unknown): number {
  const t = TARIFF[productCode];
  return t.base + t.perKg * Math.max(1, Math.ceil(Math.max(weightKg, volumetricKg))) + insurance(services);
}

const rec = (v: unknown): Record<string, any> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, any>) : {});

/** `POST /rates`: the route's products priced for the first piece (a one-piece shipment). */
export function rate(books: DhlBooks, body: any): Answer {
  const shipper = rec(rec(body.customerDetails).shipperDetails);
  const receiver = rec(rec(body.customerDetails).receiverDetails);
  const route = dhlRoute(String(shipper.countryCode), String(receiver.countryCode));
  if (isCustomsDeclarable(route) !== body.isCustomsDeclarable) {
    return [400, dhlError(400, 'Bad request', `420505: The shipment is ${isCustomsDeclarable(route) ? '' : 'not '}customs declarable between these countries.`, '/expressapi/rates')];
  }
  const piece = rec(body.packages?.[0]);
  const d = rec(piece.dimensions);
  const volumetric = (Number(d.length) * Number(d.width) * Number(d.height)) / 5_000 || 0;
  const currency = currencyOf(String(shipper.countryCode));
  const products = ROUTE_PRODUCTS[route].filter((code) => body.productCode === undefined || body.productCode === code);
  if (products.length === 0) return [400, dhlError(400, 'Bad request', `1001: The requested product(s) (${body.productCode}) not available based on your search criteria.`, '/expressapi/rates')];
  return [200, {
    products: products.map((code) => ({
      productName: PRODUCT_NAMES[code],
      productCode: code,
      networkTypeCode: 'TD',
      weight: { volumetric, provided: Number(piece.weight), unitOfMeasurement: 'metric' },
      totalPrice: [{ currencyType: 'BILLC', priceCurrency: currency, price: price(code, Number(piece.weight), volumetric, body.valueAddedServices) / 100 }],
      deliveryCapabilities: { deliveryTypeCode: 'QDDC', totalTransitDays: TARIFF[code].days },
    })),
  }];
}

const lines = (party: any) => [rec(party.contactInformation).fullName, rec(party.postalAddress).addressLine1, `${rec(party.postalAddress).postalCode} ${rec(party.postalAddress).cityName}`, rec(party.postalAddress).countryCode].map(String);

/** `POST /shipments`: a waybill, the label, and the invoice when asked for on a dutiable shipment. */
export async function ship(books: DhlBooks, body: any): Promise<Answer> {
  const shipperAccount = (body.accounts as any[]).find((a) => a.typeCode === 'shipper')?.number;
  if (shipperAccount !== books.account) return [400, dhlError(400, 'Bad request', '8003: Account not allowed for this service. Please contact your DHL Express representative.', '/expressapi/shipments')];
  const shipper = rec(body.customerDetails.shipperDetails);
  const receiver = rec(body.customerDetails.receiverDetails);
  const route = dhlRoute(shipper.postalAddress.countryCode, receiver.postalAddress.countryCode);
  const content = rec(body.content);
  if (!ROUTE_PRODUCTS[route].some((code) => code === body.productCode)) {
    return [400, dhlError(400, 'Bad request', `7001: The requested product ${body.productCode} is not available between this origin and destination.`, '/expressapi/shipments')];
  }
  if (isCustomsDeclarable(route) !== content.isCustomsDeclarable || (content.isCustomsDeclarable && !content.exportDeclaration)) {
    return [400, dhlError(400, 'Bad request', '420505: The customs declarable flag and the export declaration do not match the route.', '/expressapi/shipments')];
  }
  const piece = rec(content.packages[0]);
  const d = rec(piece.dimensions);
  const volumetric = (Number(d.length) * Number(d.width) * Number(d.height)) / 5_000 || 0;
  const trackingNumber = waybill(books.nextSerial());
  const reference = (body.customerReferences as any[] | undefined)?.find((r) => (r.typeCode ?? 'CU') === 'CU')?.value ?? '';
  const options = (body.outputImageProperties?.imageOptions ?? []) as any[];
  const wantsInvoice = options.some((o) => o.typeCode === 'invoice' && o.isRequested === true) && content.isCustomsDeclarable === true;
  const shipment: SimDhlShipment = {
    trackingNumber,
    references: reference ? [reference] : [],
    account: books.account,
    productCode: body.productCode,
    createdAt: books.clock(),
    origin: { city: shipper.postalAddress.cityName, postcode: shipper.postalAddress.postalCode, country: shipper.postalAddress.countryCode },
    destination: { city: receiver.postalAddress.cityName, postcode: receiver.postalAddress.postalCode, country: receiver.postalAddress.countryCode },
    weightKg: Number(piece.weight),
    price: { amount: price(body.productCode, Number(piece.weight), volumetric, body.valueAddedServices), currency: currencyOf(shipper.postalAddress.countryCode) },
    invoice: wantsInvoice,
  };
  const label = await simLabelPdf({ trackingNumber, productName: PRODUCT_NAMES[body.productCode], productCode: body.productCode, from: lines(shipper), to: lines(receiver), weightKg: shipment.weightKg, reference });
  const documents: Array<{ imageFormat: string; content: string; typeCode: string }> = [{ imageFormat: 'PDF', content: label, typeCode: 'label' }];
  if (wantsInvoice) {
    const declaration = rec(content.exportDeclaration);
    const invoice = rec(declaration.invoice);
    documents.push({
      imageFormat: 'PDF',
      typeCode: 'invoice',
      content: await simInvoicePdf({
        number: String(invoice.number), date: String(invoice.date), trackingNumber, currency: String(content.declaredValueCurrency ?? ''),
        shipper: lines(shipper), receiver: lines(receiver), signer: invoice.signatureName,
        lines: (declaration.lineItems as any[]).map((l) => ({ description: l.description, quantity: l.quantity.value, price: l.price, commodity: l.commodityCodes?.[0]?.value, origin: l.manufacturerCountry })),
      }),
    });
  }
  books.shipments.set(trackingNumber, shipment);
  books.onPurchase?.(shipment);
  return [201, {
    url: `/expressapi/shipments/${trackingNumber}`,
    shipmentTrackingNumber: trackingNumber,
    trackingUrl: `/expressapi/shipments/${trackingNumber}/tracking`,
    packages: [{ referenceNumber: 1, trackingNumber: `JD01460000${trackingNumber}` }],
    documents,
    shipmentCharges: [{ currencyType: 'BILLC', priceCurrency: shipment.price.currency, price: shipment.price.amount / 100 }],
  }];
}

function shipmentView(books: DhlBooks, shipment: SimDhlShipment, withEvents: boolean) {
  const events = withEvents ? checkpointsAt(shipment, books.schedule, books.clock(), books.extraCheckpoints(shipment.trackingNumber)) : [];
  const party = (p: SimDhlShipment['origin']) => ({ name: '', postalAddress: { cityName: p.city, postalCode: p.postcode, countryCode: p.country } });
  return {
    shipmentTrackingNumber: shipment.trackingNumber,
    status: 'Success',
    shipmentTimestamp: new Date(shipment.createdAt).toISOString().slice(0, 19),
    productCode: shipment.productCode,
    shipperDetails: party(shipment.origin),
    receiverDetails: party(shipment.destination),
    totalWeight: shipment.weightKg,
    unitOfMeasurements: 'metric',
    shipperReferences: shipment.references.map((value) => ({ value, typeCode: 'CU' })),
    events: events.map((e) => {
      const iso = new Date(e.at).toISOString();
      return { date: iso.slice(0, 10), time: iso.slice(11, 19), GMTOffset: '+00:00', typeCode: e.typeCode, description: e.description, serviceArea: [{ code: e.area.slice(0, 3), description: e.area }] };
    }),
    numberOfPieces: 1,
  };
}

/** `GET /shipments/{n}/tracking`: its checkpoints; 404 "No data found" until DHL has scanned it. */
export function track(books: DhlBooks, trackingNumber: string): Answer {
  const shipment = books.shipments.get(trackingNumber);
  const view = shipment && shipmentView(books, shipment, true);
  if (!view || view.events.length === 0) return [404, dhlError(404, 'Not data found', 'No data found', `/expressapi/shipments/${trackingNumber}/tracking`)];
  return [200, { shipments: [view] }];
}

/** `GET /tracking?shipmentReference=…&shipperAccountNumber=…`: the account's shipments made with that reference. */
export function reference(books: DhlBooks, query: URLSearchParams): Answer {
  const ref = query.get('shipmentReference');
  const account = query.get('shipperAccountNumber');
  if (ref && !account) return [400, dhlError(400, 'Missing parameters', 'Missing mandatory parameters: shipperAccountNumber', '/expressapi/tracking')];
  if (!ref || !query.get('dateRangeFrom') || !query.get('dateRangeTo')) return [400, dhlError(400, 'Missing parameters', 'Missing mandatory parameters: shipmentReference, dateRangeFrom, dateRangeTo', '/expressapi/tracking')];
  const found = [...books.shipments.values()].filter((s) => s.account === account && s.references.includes(ref));
  if (found.length === 0) return [404, dhlError(404, 'Not data found', `No Shipments Found for ReferenceID | ${ref}`, '/expressapi/tracking')];
  return [200, { shipments: found.map((s) => shipmentView(books, s, query.get('trackingView') !== 'shipment-details-only')) }];
}

/** `POST /pickups`: a booking and its dispatch confirmation number. */
export function pickup(books: DhlBooks, body: any): Answer {
  if (!(body.accounts as any[]).some((a) => a.typeCode === 'shipper' && a.number === books.account)) {
    return [400, dhlError(400, 'Bad request', '8003: Account not allowed for this service. Please contact your DHL Express representative.', '/expressapi/pickups')];
  }
  const confirmation = `PRG${new Date(books.clock()).toISOString().slice(2, 10).replace(/-/g, '')}${String(books.nextSerial()).padStart(6, '0')}`;
  books.pickups.set(confirmation, { confirmation, account: books.account, plannedAt: body.plannedPickupDateAndTime, status: 'booked' });
  return [201, { dispatchConfirmationNumbers: [confirmation], readyByTime: '09:00', nextPickupDate: String(body.plannedPickupDateAndTime).slice(0, 10) }];
}

/** `DELETE /pickups/{n}?requestorName=…&reason=…`. */
export function cancelPickup(books: DhlBooks, confirmation: string, query: URLSearchParams): Answer {
  const instance = `/expressapi/pickups/${confirmation}`;
  const missing = ['requestorName', 'reason'].filter((name) => !query.get(name));
  if (missing.length) return [400, dhlError(400, 'Missing parameters', `Missing mandatory parameters: ${missing.join(', ')}`, instance)];
  const booked = books.pickups.get(confirmation);
  if (!booked) return [404, dhlError(404, 'Pickup not found', 'Cancellation of booking was not successful. Requested Pickup was not found', instance)];
  if (booked.status === 'cancelled') return [400, dhlError(400, 'Bad request', 'Pickup already cancelled or completed', instance)];
  booked.status = 'cancelled';
  return [200, undefined];
}

/** Our service code of a simulated shipment, for the shared simulator's books. */
export function serviceOf(shipment: SimDhlShipment): string {
  return ourDhlServiceCode(shipment.productCode, dhlRoute(shipment.origin.country, shipment.destination.country)) ?? shipment.productCode;
}
