import { describe, expect, it } from 'vitest';
import { DHL_CHECKPOINT_STATUS, dhlScanStatus, parseDhlFoundShipments, parseDhlTracking } from '../../../carriers/dhl-express/mapping-tracking.js';
import { buildDhlRateRequest, parseDhlRates } from '../../../carriers/dhl-express/mapping-rates.js';
import { buildDhlShipmentRequest, dhlCustomsProblems, parseDhlShipmentResponse } from '../../../carriers/dhl-express/mapping-shipment.js';
import { buildDhlPickupRequest, dhlPickupProblems, parseDhlPickupResponse } from '../../../carriers/dhl-express/mapping-pickup.js';
import { dhlAddressProblems, dhlPhoneProblems } from '../../../carriers/dhl-express/mapping-address.js';
import { classifyDhlAnswer, readDhlError } from '../../../carriers/dhl-express/errors.js';
import { dhlProductCode, dhlRoute, ourDhlServiceCode } from '../../../carriers/dhl-express/services.js';
import { ACCOUNT, AT, CUSTOMS, DE_TO, FR_TO, GB_FROM, PARCEL, RATES_ANSWER, REFERENCE, SHIPMENT_ANSWER, TRACKING_ANSWER } from './payloads.js';

describe('DHL Express products by customs status (contract: Carriers)', () => {
  it('chooses the product code by route: dutiable, within the EU, domestic', () => {
    expect(dhlRoute('GB', 'DE')).toBe('dutiable');
    expect(dhlRoute('de', 'FR')).toBe('within_eu');
    expect(dhlRoute('GB', 'GB')).toBe('domestic');
    expect(dhlProductCode('dhl_express_worldwide', 'dutiable')).toBe('P');
    expect(dhlProductCode('dhl_express_worldwide', 'within_eu')).toBe('U');
    expect(dhlProductCode('dhl_express_economy_select', 'dutiable')).toBe('H');
    expect(dhlProductCode('dhl_express_economy_select', 'within_eu')).toBe('W');
    expect(dhlProductCode('dhl_express_12', 'dutiable')).toBe('Y');
    expect(dhlProductCode('dhl_express_9', 'dutiable')).toBe('E');
    expect(dhlProductCode('dhl_express_domestic', 'domestic')).toBe('N');
    // Worldwide does not go within a country, nor domestic across a border.
    expect(dhlProductCode('dhl_express_worldwide', 'domestic')).toBeUndefined();
    expect(dhlProductCode('dhl_express_domestic', 'dutiable')).toBeUndefined();
    expect(ourDhlServiceCode('U', 'within_eu')).toBe('dhl_express_worldwide');
    expect(ourDhlServiceCode('U', 'dutiable')).toBeUndefined();
    expect(ourDhlServiceCode('8', 'dutiable')).toBeUndefined();
  });
});

describe('DHL Express rates mapping', () => {
  it('builds POST /rates field for field, customs-declarable across the EU border', () => {
    expect(buildDhlRateRequest({ from: GB_FROM, to: DE_TO, parcel: PARCEL, accountNumber: ACCOUNT, at: AT })).toEqual({
      customerDetails: {
        shipperDetails: { postalCode: 'SE1 2UP', cityName: 'London', countryCode: 'GB', addressLine1: '1 Tower Bridge Rd', addressLine2: 'Unit 4' },
        receiverDetails: { postalCode: '10117', cityName: 'Berlin', countryCode: 'DE', addressLine1: 'Friedrichstraße 43' },
      },
      accounts: [{ typeCode: 'shipper', number: ACCOUNT }],
      plannedShippingDateAndTime: '2026-03-02T10:30:15 GMT+00:00',
      unitOfMeasurement: 'metric',
      isCustomsDeclarable: true,
      nextBusinessDay: true,
      packages: [{ weight: 1.5, dimensions: { length: 30, width: 20, height: 10.5 } }],
    });
  });

  it('asks for one product when one service is asked, the EU code within the EU, and nothing where it does not go', () => {
    expect(buildDhlRateRequest({ from: GB_FROM, to: FR_TO, parcel: PARCEL, accountNumber: ACCOUNT, at: AT, serviceCode: 'dhl_express_worldwide' })).toMatchObject({ productCode: 'P', isCustomsDeclarable: true });
    expect(buildDhlRateRequest({ from: { ...GB_FROM, country: 'DE' }, to: FR_TO, parcel: PARCEL, accountNumber: ACCOUNT, at: AT, serviceCode: 'dhl_express_worldwide' })).toMatchObject({ productCode: 'U', isCustomsDeclarable: false });
    expect(buildDhlRateRequest({ from: GB_FROM, to: DE_TO, parcel: PARCEL, accountNumber: ACCOUNT, at: AT, serviceCode: 'dhl_express_domestic' })).toBeNull();
  });

  it('reads the billing-currency total of the products we sell', () => {
    expect(parseDhlRates(RATES_ANSWER, GB_FROM, DE_TO)).toEqual([
      { serviceCode: 'dhl_express_worldwide', productCode: 'P', net: 4127, currency: 'GBP', estimatedDeliveryDays: 2 },
      { serviceCode: 'dhl_express_12', productCode: 'Y', net: 6300, currency: 'GBP', estimatedDeliveryDays: 1 },
    ]);
    expect(parseDhlRates({ products: [] }, GB_FROM, DE_TO)).toEqual([]);
    expect(parseDhlRates({ nothing: true }, GB_FROM, DE_TO)).toBeUndefined();
  });
});

describe('DHL Express shipment mapping', () => {
  const input = { reference: REFERENCE, serviceCode: 'dhl_express_worldwide', from: GB_FROM, to: DE_TO, parcel: PARCEL, customs: CUSTOMS, accountNumber: ACCOUNT, at: AT };

  it('builds POST /shipments GB to DE with the export declaration, the invoice asked for and duties billed to us (DDP)', () => {
    expect(buildDhlShipmentRequest(input)).toEqual({
      plannedShippingDateAndTime: '2026-03-02T10:30:15 GMT+00:00',
      pickup: { isRequested: false },
      productCode: 'P',
      accounts: [
        { typeCode: 'shipper', number: ACCOUNT },
        { typeCode: 'duties-taxes', number: ACCOUNT },
      ],
      outputImageProperties: {
        encodingFormat: 'pdf',
        imageOptions: [
          { typeCode: 'label', templateName: 'ECOM26_84_001' },
          { typeCode: 'waybillDoc', isRequested: false },
          { typeCode: 'invoice', templateName: 'COMMERCIAL_INVOICE_P_10', isRequested: true, invoiceType: 'commercial' },
        ],
        splitTransportAndWaybillDocLabels: true,
      },
      customerReferences: [{ value: REFERENCE, typeCode: 'CU' }],
      customerDetails: {
        shipperDetails: {
          postalAddress: { postalCode: 'SE1 2UP', cityName: 'London', countryCode: 'GB', addressLine1: '1 Tower Bridge Rd', addressLine2: 'Unit 4' },
          contactInformation: { email: 'ann@example.com', phone: '+44 20 7946 0000', companyName: 'Tower Books Ltd', fullName: 'Ann Shipper' },
          registrationNumbers: [{ typeCode: 'EOR', number: 'GB123456789000', issuerCountryCode: 'GB' }],
        },
        receiverDetails: {
          postalAddress: { postalCode: '10117', cityName: 'Berlin', countryCode: 'DE', addressLine1: 'Friedrichstraße 43' },
          // A private receiver's company name is their own name (DHL requires one).
          contactInformation: { phone: '+49 30 1234567', companyName: 'Bert Empfänger', fullName: 'Bert Empfänger' },
        },
      },
      content: {
        packages: [{ weight: 1.5, dimensions: { length: 30, width: 20, height: 10.5 } }],
        isCustomsDeclarable: true,
        declaredValue: 55.5,
        declaredValueCurrency: 'GBP',
        exportDeclaration: {
          lineItems: [
            {
              number: 1,
              description: 'Cotton T-shirt',
              price: 15,
              quantity: { value: 2, unitOfMeasurement: 'PCS' },
              commodityCodes: [{ typeCode: 'outbound', value: '610910' }],
              exportReasonType: 'commercial_purpose_or_sale',
              manufacturerCountry: 'PT',
              weight: { netValue: 0.4, grossValue: 0.4 },
            },
            {
              number: 2,
              description: 'Paperback novel',
              price: 8.5,
              quantity: { value: 3, unitOfMeasurement: 'PCS' },
              exportReasonType: 'commercial_purpose_or_sale',
              manufacturerCountry: 'GB',
              weight: { netValue: 0.9, grossValue: 0.9 },
            },
          ],
          invoice: { number: 'INV-1001', date: '2026-03-02', signatureName: 'Ann Shipper' },
          exportReasonType: 'commercial_purpose_or_sale',
          shipmentType: 'commercial',
        },
        description: 'Cotton T-shirt',
        incoterm: 'DDP',
        unitOfMeasurement: 'metric',
      },
    });
  });

  it('declares nothing within the EU and domestically, and numbers the invoice by our id when none is given', () => {
    const eu = buildDhlShipmentRequest({ ...input, from: { ...GB_FROM, country: 'DE', postcode: '10115' }, to: FR_TO, customs: { ...CUSTOMS, incoterm: 'DDU' } });
    expect(eu.productCode).toBe('U');
    expect(eu.content).toMatchObject({ isCustomsDeclarable: false, incoterm: 'DDU' });
    expect(eu.content).not.toHaveProperty('exportDeclaration');
    expect(eu.outputImageProperties.imageOptions.map((o) => o.typeCode)).toEqual(['label', 'waybillDoc']);
    const domestic = buildDhlShipmentRequest({ ...input, serviceCode: 'dhl_express_domestic', to: { ...GB_FROM, name: 'Bob' }, customs: undefined });
    expect(domestic).toMatchObject({ productCode: 'N', accounts: [{ typeCode: 'shipper', number: ACCOUNT }], content: { isCustomsDeclarable: false, incoterm: 'DAP', description: 'Parcel' } });
    const { invoice_number: _, ...unnumbered } = CUSTOMS;
    expect(buildDhlShipmentRequest({ ...input, customs: unnumbered }).content.exportDeclaration?.invoice.number).toBe(REFERENCE);
  });

  it('reads the waybill, the label PDF, the invoice PDF and the billed amount', () => {
    expect(parseDhlShipmentResponse(SHIPMENT_ANSWER)).toEqual({
      trackingNumber: '1103733901',
      label: { format: 'pdf', contentBase64: 'JVBERi0xLjQKbGFiZWw=' },
      invoice: 'JVBERi0xLjQKaW52b2ljZQ==',
      billed: { amount: 4127, currency: 'GBP' },
    });
    expect(parseDhlShipmentResponse({ ...SHIPMENT_ANSWER, documents: [] })).toBeUndefined();
    expect(parseDhlShipmentResponse({ documents: SHIPMENT_ANSWER.documents })).toBeUndefined();
  });

  it('names what DHL cannot take, never cutting it: long lines, a missing phone, an IOSS number', () => {
    expect(dhlAddressProblems({ ...DE_TO, line1: 'x'.repeat(46), city: 'y'.repeat(46) }, 'to').map((p) => p.path)).toEqual(['to.line1', 'to.city']);
    expect(dhlAddressProblems(GB_FROM, 'from')).toEqual([]);
    expect(dhlPhoneProblems({ ...DE_TO, phone: undefined }, 'to')).toEqual([{ path: 'to.phone', message: expect.any(String) }]);
    expect(dhlCustomsProblems({ ...CUSTOMS, tax_ids: [{ type: 'ioss', number: 'IM0123456789', owner: 'sender' }] }).map((p) => p.path)).toEqual(['customs.tax_ids[0].type']);
  });
});

describe('DHL Express tracking mapping', () => {
  it('maps checkpoints to our statuses with DHL code kept, oldest first, times with their offsets', () => {
    expect(parseDhlTracking(TRACKING_ANSWER, '1103733901')).toEqual([
      { id: '1103733901:2026-03-03T02:56:21.000Z:PU', occurredAt: '2026-03-03T02:56:21.000Z', status: 'in_transit', carrierCode: 'PU', description: 'Shipment picked up', location: { city: 'SYDNEY', postcode: '', country: 'AU' } },
      { id: '1103733901:2026-03-03T09:50:00.000Z:AR', occurredAt: '2026-03-03T09:50:00.000Z', status: 'in_transit', carrierCode: 'AR', description: 'Arrived at DHL Delivery Facility - BERLIN-DE', location: { city: 'BERLIN', postcode: '', country: 'DE' } },
      { id: '1103733901:2026-03-03T09:50:14.000Z:WC', occurredAt: '2026-03-03T09:50:14.000Z', status: 'out_for_delivery', carrierCode: 'WC', description: 'Shipment is out with courier for delivery', location: { city: 'BERLIN', postcode: '', country: 'DE' } },
      { id: '1103733901:2026-03-03T12:59:23.000Z:OK', occurredAt: '2026-03-03T12:59:23.000Z', status: 'delivered', carrierCode: 'OK', description: 'Delivered : BERT E', location: { city: 'BERLIN', postcode: '', country: 'DE' } },
    ]);
    expect(parseDhlTracking({ shipments: [] }, '1')).toEqual([]);
    expect(parseDhlTracking({}, '1')).toBeUndefined();
  });

  it('has one table from checkpoint codes to our statuses; an unlisted code is in transit', () => {
    expect(DHL_CHECKPOINT_STATUS).toMatchObject({ OK: 'delivered', WC: 'out_for_delivery', NH: 'exception', RT: 'exception' });
    expect(dhlScanStatus('DF')).toBe('in_transit');
    expect(dhlScanStatus('ZZ')).toBe('in_transit');
  });

  it('reads a lookup by reference as the shipments DHL made', () => {
    const found = parseDhlFoundShipments({ shipments: [{ shipmentTrackingNumber: '1103733901', productCode: 'P', shipperDetails: { postalAddress: { countryCode: 'GB' } }, receiverDetails: { postalAddress: { countryCode: 'DE' } }, events: [] }] });
    expect(found).toEqual([{ trackingNumber: '1103733901', productCode: 'P', originCountry: 'GB', destinationCountry: 'DE' }]);
  });
});

describe('DHL Express pickup mapping', () => {
  const request = {
    reference: 'pck_01j9zq0example0000000000',
    address: GB_FROM,
    window: { start: '2026-03-02T12:00:00.000Z', end: '2026-03-02T17:00:00.000Z' },
    parcels: { count: 2, totalWeightG: 3_000, serviceCodes: ['dhl_express_worldwide'], destinationCountries: ['DE'] },
    instructions: 'Ring at reception',
  };

  it('builds POST /pickups with the close time on the location clock and the parcels as DHL pieces', () => {
    expect(buildDhlPickupRequest(request, ACCOUNT)).toEqual({
      plannedPickupDateAndTime: '2026-03-02T12:00:00 GMT+00:00',
      closeTime: '17:00',
      accounts: [{ typeCode: 'shipper', number: ACCOUNT }],
      specialInstructions: [{ value: 'Ring at reception' }],
      remark: request.reference,
      customerDetails: {
        shipperDetails: {
          postalAddress: { postalCode: 'SE1 2UP', cityName: 'London', countryCode: 'GB', addressLine1: '1 Tower Bridge Rd', addressLine2: 'Unit 4' },
          contactInformation: { email: 'ann@example.com', phone: '+44 20 7946 0000', companyName: 'Tower Books Ltd', fullName: 'Ann Shipper' },
        },
      },
      shipmentDetails: [{ productCode: 'P', isCustomsDeclarable: true, unitOfMeasurement: 'metric', packages: [{ weight: 1.5 }, { weight: 1.5 }] }],
    });
    expect(parseDhlPickupResponse({ dispatchConfirmationNumbers: ['PRG260302000123'] })).toEqual({ confirmation: 'PRG260302000123' });
    expect(parseDhlPickupResponse({ dispatchConfirmationNumbers: [] })).toBeUndefined();
  });

  it('needs a phone at the address', () => {
    expect(dhlPickupProblems({ address: { ...GB_FROM, phone: undefined } }).map((p) => p.path)).toEqual(['address.phone']);
    expect(dhlPickupProblems({ address: { ...GB_FROM, phone: undefined }, phone: '+44 1' })).toEqual([]);
  });
});

describe('DHL Express error table', () => {
  it("reads DHL's problem body: the numeric code before the detail, the additional details", () => {
    expect(readDhlError({ instance: '/expressapi/shipments', detail: "7008: The requested Special Service Code is not available", title: 'Bad request', message: 'Bad request', status: '400' })).toEqual({
      code: '7008',
      message: 'The requested Special Service Code is not available',
    });
    expect(readDhlError({ detail: 'Multiple problems found, see Additional Details', title: 'Validation error', additionalDetails: ['#/location: expected maxLength: 80, actual: 85'], status: '422' })).toEqual({
      code: 'Validation error',
      message: 'Multiple problems found, see Additional Details; #/location: expected maxLength: 80, actual: 85',
    });
    expect(readDhlError({ title: 'Unauthorized' })).toEqual({ code: 'Unauthorized', message: 'Unauthorized' });
  });

  it('classifies by status with DHL\'s hint: retryable, ambiguous for a write behind a gateway, definitive, not found, credentials', () => {
    const problem = (status: number, detail: string, title = 'Bad request') => ({ instance: '/expressapi/shipments', detail, title, message: title, status: String(status) });
    expect(classifyDhlAnswer(429, problem(429, 'Too many requests'), 'ship', { 'retry-after': '3' })).toMatchObject({ kind: 'retryable', details: { status: 429, retryAfterMs: 3_000 } });
    expect(classifyDhlAnswer(500, problem(500, '999: Process failure occurred. Process ID associated for that transaction (1234567890)'), 'ship')).toMatchObject({ kind: 'retryable', details: { carrierErrorCode: '999' } });
    expect(classifyDhlAnswer(503, problem(503, 'Service unavailable'), 'ship').kind).toBe('ambiguous');
    expect(classifyDhlAnswer(503, problem(503, 'Service unavailable'), 'track').kind).toBe('retryable');
    expect(classifyDhlAnswer(503, problem(503, 'Service unavailable'), 'pickup_cancel').kind).toBe('ambiguous');
    const refused = classifyDhlAnswer(400, problem(400, '8003: Account not allowed for this service.'), 'ship');
    expect(refused).toMatchObject({ kind: 'definitive', message: 'Account not allowed for this service.', details: { status: 400, carrierErrorCode: '8003' } });
    expect(classifyDhlAnswer(404, problem(404, 'No data found', 'Not data found'), 'track')).toMatchObject({ kind: 'definitive', details: { reason: 'not_found' } });
    const credentials = classifyDhlAnswer(401, problem(401, 'Invalid credentials', 'Unauthorized'), 'rate');
    expect(credentials).toMatchObject({ kind: 'definitive', message: 'DHL Express refused the API credentials (HTTP 401: Invalid credentials)' });
  });
});

describe('DHL Express insurance mapping', () => {
  it('sends a declared value as service II in the account currency, to rates and to shipments', () => {
    expect(buildDhlRateRequest({ from: GB_FROM, to: DE_TO, parcel: PARCEL, accountNumber: ACCOUNT, at: AT, insure: { value: '250.00', currency: 'GBP' } })).toMatchObject({
      valueAddedServices: [{ serviceCode: 'II', value: 250, currency: 'GBP' }],
    });
    const shipment = buildDhlShipmentRequest({ reference: REFERENCE, serviceCode: 'dhl_express_worldwide', from: GB_FROM, to: DE_TO, parcel: PARCEL, customs: CUSTOMS, accountNumber: ACCOUNT, at: AT, options: { declared_value: '250.00' }, currency: 'GBP' });
    expect(shipment.valueAddedServices).toEqual([{ serviceCode: 'II', value: 250, currency: 'GBP' }]);
  });
});
