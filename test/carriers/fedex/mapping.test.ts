import { describe, expect, it } from 'vitest';
import { CARRIER_REASON } from '../../../domain/index.js';
import {
  buildCancelRequest,
  buildPickupCancelRequest,
  buildPickupRequest,
  buildRateRequest,
  buildReferenceRequest,
  buildShipRequest,
  buildTrackRequest,
  classifyFedexAnswer,
  FEDEX_EVENT_TYPES,
  fedexAddressProblems,
  fedexContactProblems,
  fedexCustomsProblems,
  fedexParcelProblems,
  fedexPhone,
  parseCancelResponse,
  parsePickupConfirmation,
  parsePickupResponse,
  parseRateResponse,
  parseReferenceResponse,
  parseShipResponse,
  parseTrackResponse,
  readFedexError,
} from '../../../carriers/fedex/mapping.js';
import { ACCOUNT, CA_TO, CUSTOMS, INVOICE_PDF, LABEL_PNG, PARCEL, RATE_REQUEST, RATE_RESPONSE, REFERENCE_RESPONSE, SHIP_REQUEST_ABROAD, SHIP_RESPONSE, TRACK_NOT_FOUND, TRACK_RESPONSE, US_FROM, US_TO } from './payloads.js';

// The pure FedEx mapping against payloads written from FedEx's documents (payloads.ts): each
// request built from our types compared field for field, each canned answer read into ours.

const REFERENCE = 'shp_01jfedex0000000000000000';

describe('Rates and Transit Times', () => {
  it('asks for every service on the route with the account and list rates, the options on the package', () => {
    const body = buildRateRequest({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all', accountNumber: ACCOUNT, options: { signature: 'required', declared_value: '150.00' }, currency: 'USD' });
    expect(body).toEqual(RATE_REQUEST);
  });

  it('names one service, and asks for Saturday delivery and a print-return label as shipment special services', () => {
    const body = buildRateRequest({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'fedex_2day', accountNumber: ACCOUNT, options: { saturday_delivery: true, signature: 'adult' }, isReturn: true });
    expect(body.requestedShipment).toMatchObject({
      serviceType: 'FEDEX_2_DAY',
      shipmentSpecialServices: { specialServiceTypes: ['SATURDAY_DELIVERY', 'RETURN_SHIPMENT'], returnShipmentDetail: { returnType: 'PRINT_RETURN_LABEL' } },
      requestedPackageLineItems: [{ packageSpecialServices: { specialServiceTypes: ['SIGNATURE_OPTION'], signatureOptionType: 'ADULT' } }],
    });
    // A declared value without the account's currency is not sent: its amount would mean nothing.
    expect(buildRateRequest({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all', accountNumber: ACCOUNT, options: { declared_value: '10.00' } }).requestedShipment.requestedPackageLineItems[0]).not.toHaveProperty('declaredValue');
    expect(() => buildRateRequest({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'ups_ground', accountNumber: ACCOUNT })).toThrow(/not a FedEx service/);
  });

  it('reads the services we sell: the ACCOUNT rate, else LIST, in minor units, with transit days', () => {
    expect(parseRateResponse(RATE_RESPONSE)).toEqual([
      { serviceCode: 'fedex_ground', net: 1188, currency: 'USD', estimatedDeliveryDays: 5 },
      { serviceCode: 'fedex_priority_overnight', net: 6462, currency: 'USD', estimatedDeliveryDays: 1 },
    ]);
    // A price we cannot read is never guessed.
    const broken = structuredClone(RATE_RESPONSE);
    broken.output.rateReplyDetails[0]!.ratedShipmentDetails = [{ rateType: 'ACCOUNT', totalNetCharge: 'cheap' as unknown as number, shipmentRateDetail: { currency: 'USD' } }];
    expect(parseRateResponse(broken)).toBeUndefined();
    expect(parseRateResponse({ output: {} })).toBeUndefined();
  });
});

describe('Ship', () => {
  it('buys abroad with customsClearanceDetail, the commercial invoice as a document, and our id as the reference', () => {
    const body = buildShipRequest({ reference: REFERENCE, serviceCode: 'fedex_international_priority', from: US_FROM, to: CA_TO, parcel: PARCEL, accountNumber: ACCOUNT, customs: CUSTOMS, at: '2026-11-29T15:00:00Z' });
    expect(body).toEqual(SHIP_REQUEST_ABROAD);
  });

  it('buys within the US in pounds and inches, with no customs, no invoice and no sub-packaging', () => {
    const body = buildShipRequest({ reference: REFERENCE, serviceCode: 'fedex_ground', from: US_FROM, to: US_TO, parcel: PARCEL, accountNumber: ACCOUNT, customs: CUSTOMS, at: '2026-11-29T15:00:00Z' });
    expect(body.requestedShipment).not.toHaveProperty('customsClearanceDetail');
    expect(body.requestedShipment).not.toHaveProperty('shippingDocumentSpecification');
    expect(body.requestedShipment.requestedPackageLineItems[0]).toEqual({
      customerReferences: [{ customerReferenceType: 'CUSTOMER_REFERENCE', value: REFERENCE }],
      weight: { units: 'LB', value: 3.4 },
      dimensions: { length: 12, width: 8, height: 4, units: 'IN' },
    });
    expect(body.requestedShipment.totalWeight).toBe(3.4);
  });

  it('reads the label, the invoice, the master tracking number and what FedEx bills at its actual rate', () => {
    expect(parseShipResponse(SHIP_RESPONSE)).toEqual({
      trackingNumber: '794953535000',
      carrierShipmentId: '794953535000',
      label: { format: 'png', contentBase64: LABEL_PNG },
      billed: { amount: 7610, currency: 'USD' },
      documents: [{ type: 'commercial_invoice', format: 'pdf', contentBase64: INVOICE_PDF }],
    });
    const noLabel = structuredClone(SHIP_RESPONSE);
    noLabel.output.transactionShipments[0]!.pieceResponses[0]!.packageDocuments = [];
    expect(parseShipResponse(noLabel)).toBeUndefined();
  });

  it('cancels every package by the master tracking number, and reads whether FedEx did', () => {
    expect(buildCancelRequest({ accountNumber: ACCOUNT, trackingNumber: '794953535000' })).toEqual({ accountNumber: { value: ACCOUNT }, trackingNumber: '794953535000', deletionControl: 'DELETE_ALL_PACKAGES' });
    expect(parseCancelResponse({ output: { cancelledShipment: true, message: 'Shipment is successfully cancelled' } })).toEqual({ cancelled: true, message: 'Shipment is successfully cancelled' });
    expect(parseCancelResponse({ output: { cancelledShipment: false } })).toEqual({ cancelled: false, message: '' });
    expect(parseCancelResponse({ output: {} })).toBeUndefined();
  });
});

describe('Basic Integrated Visibility', () => {
  it('asks for one number with every scan, and by our reference within dates around the purchase', () => {
    expect(buildTrackRequest('794953535000')).toEqual({ includeDetailedScans: true, trackingInfo: [{ trackingNumberInfo: { trackingNumber: '794953535000' } }] });
    expect(buildReferenceRequest({ reference: REFERENCE, accountNumber: ACCOUNT, around: new Date('2026-11-29T15:00:00Z') })).toEqual({
      referencesInformation: { type: 'CUSTOMER_REFERENCE', value: REFERENCE, accountNumber: ACCOUNT, shipDateBegin: '2026-10-30', shipDateEndDate: '2026-11-30' },
      includeDetailedScans: true,
    });
  });

  it('reads the scans oldest first through one table, FedEx’s code kept, and leaves an unknown code out', () => {
    expect(parseTrackResponse(TRACK_RESPONSE, '794953535000')).toEqual([
      { id: '794953535000:2026-11-29T17:00:00Z:OC', occurredAt: '2026-11-29T17:00:00Z', status: 'label_created', carrierCode: 'OC', description: 'Shipment information sent to FedEx', location: null },
      { id: '794953535000:2026-11-29T22:30:00Z:PU', occurredAt: '2026-11-29T22:30:00Z', status: 'in_transit', carrierCode: 'PU', description: 'Picked up', location: { city: 'TIMONIUM', postcode: '21093', country: 'US' } },
      { id: '794953535000:2026-11-30T13:10:00Z:OD', occurredAt: '2026-11-30T13:10:00Z', status: 'out_for_delivery', carrierCode: 'OD', description: 'On FedEx vehicle for delivery', location: { city: 'OTTAWA', postcode: '', country: 'CA' } },
      { id: '794953535000:2026-11-30T19:02:00Z:DL', occurredAt: '2026-11-30T19:02:00Z', status: 'delivered', carrierCode: 'DL', description: 'Delivered', location: { city: 'OTTAWA', postcode: 'K1A0B1', country: 'CA' } },
    ]);
    expect(parseTrackResponse(TRACK_NOT_FOUND, '799999999999')).toBeNull();
    expect(FEDEX_EVENT_TYPES).toMatchObject({ DE: 'exception', CA: 'cancelled', HL: 'in_transit' });
  });

  it('finds only the packages whose customer reference is exactly ours, with their service and whether cancelled', () => {
    expect(parseReferenceResponse(REFERENCE_RESPONSE, REFERENCE)).toEqual([{ trackingNumber: '794953535000', serviceType: 'FEDEX_INTERNATIONAL_PRIORITY', cancelled: true }]);
    expect(parseReferenceResponse({ output: { completeTrackResults: [] } }, REFERENCE)).toEqual([]);
  });
});

describe('Pickup Request', () => {
  const window = { start: '2026-12-01T14:00:00Z', end: '2026-12-01T21:30:00Z' };

  it('books an on-call pickup on the location’s own clock, its weight in pounds, by the operating company of the parcels', () => {
    const body = buildPickupRequest({ reference: 'pck_1', address: US_FROM, window, count: 2, totalWeightG: 3_000, serviceCodes: ['fedex_ground', 'fedex_home_delivery'], destinationCountries: ['US'], instructions: 'Ring at the back door', phone: US_FROM.phone, accountNumber: ACCOUNT, now: new Date('2026-11-29T12:00:00Z') });
    expect(body).toEqual({
      associatedAccountNumber: { value: ACCOUNT },
      originDetail: {
        pickupAddressType: 'OTHER',
        pickupLocation: {
          contact: { personName: 'Ann Shipper', companyName: 'Tower Books', phoneNumber: '4105550100' },
          address: { streetLines: ['2311 York Rd', 'Suite 2'], city: 'Timonium', stateOrProvinceCode: 'MD', postalCode: '21093', countryCode: 'US', residential: false },
        },
        readyDateTimestamp: '2026-12-01T09:00:00',
        customerCloseTime: '16:30:00',
        pickupDateType: 'FUTURE_DAY',
        packageLocation: 'NONE',
      },
      totalWeight: { units: 'LB', value: 6.7 },
      packageCount: 2,
      carrierCode: 'FDXG',
      remarks: 'Ring at the back door',
      countryRelationships: 'DOMESTIC',
      pickupType: 'ON_CALL',
    });
    expect(buildPickupRequest({ reference: 'pck_2', address: US_FROM, window, count: 1, totalWeightG: 500, serviceCodes: ['fedex_2day'], destinationCountries: ['CA'], accountNumber: ACCOUNT, now: new Date('2026-12-01T13:00:00Z') })).toMatchObject({
      carrierCode: 'FDXE',
      countryRelationships: 'INTERNATIONAL',
      originDetail: { pickupDateType: 'SAME_DAY' },
    });
  });

  it('keeps what a cancel needs in the confirmation, and cancels with it', () => {
    const request = buildPickupRequest({ reference: 'pck_1', address: US_FROM, window, count: 1, totalWeightG: 500, serviceCodes: ['fedex_2day'], destinationCountries: ['US'], accountNumber: ACCOUNT, now: new Date('2026-11-29T12:00:00Z') });
    const confirmation = parsePickupResponse({ output: { pickupConfirmationCode: '3001', location: 'BWIA' } }, request);
    expect(confirmation).toBe('3001/FDXE/BWIA/2026-12-01');
    expect(buildPickupCancelRequest(ACCOUNT, parsePickupConfirmation(confirmation!)!)).toEqual({ associatedAccountNumber: { value: ACCOUNT }, pickupConfirmationCode: '3001', carrierCode: 'FDXE', scheduledDate: '2026-12-01', location: 'BWIA' });
    expect(parsePickupConfirmation('3001')).toBeUndefined();
    expect(parsePickupResponse({ output: {} }, request)).toBeUndefined();
  });
});

describe('errors', () => {
  it('reads FedEx’s error body', () => {
    expect(readFedexError({ transactionId: 't', errors: [{ code: 'NOT.FOUND.ERROR', message: 'No such resource' }] })).toEqual({ code: 'NOT.FOUND.ERROR', message: 'No such resource' });
    expect(readFedexError({ message: 'not FedEx' })).toEqual({});
  });

  it('classifies once, by status and by the table of FedEx’s codes: retryable, ambiguous for a gateway status to a write, definitive with a reason', () => {
    const error = (code: string, message = 'FedEx says no') => ({ transactionId: 't', errors: [{ code, message }] });
    expect(classifyFedexAnswer(503, error('SERVICE.UNAVAILABLE.ERROR'), 'track')).toMatchObject({ kind: 'retryable', details: { status: 503 } });
    expect(classifyFedexAnswer(503, error('SERVICE.UNAVAILABLE.ERROR'), 'ship')).toMatchObject({ kind: 'ambiguous', details: { status: 503 } });
    expect(classifyFedexAnswer(500, error('INTERNAL.SERVER.ERROR'), 'ship').kind).toBe('retryable');
    expect(classifyFedexAnswer(429, error('TOO.MANY.REQUESTS'), 'rate').kind).toBe('retryable');
    expect(classifyFedexAnswer(403, error('FORBIDDEN.ERROR', 'no'), 'ship')).toMatchObject({ kind: 'definitive', message: 'no', details: { carrierErrorCode: 'FORBIDDEN.ERROR' } });
    expect(classifyFedexAnswer(400, error('TRACKINGNUMBER.ENTERED.INVALID'), 'cancel')).toMatchObject({ kind: 'definitive', details: { reason: CARRIER_REASON.notFound } });
    expect(classifyFedexAnswer(404, error('SOMETHING.ELSE'), 'track')).toMatchObject({ kind: 'definitive', details: { reason: CARRIER_REASON.notFound } });
    const refusal = classifyFedexAnswer(400, error('SHIPMENT.VALIDATION.FAILED', 'Bad phone'), 'ship');
    expect(refusal).toMatchObject({ kind: 'definitive', message: 'Bad phone', details: { status: 400, carrierCode: 'fedex', carrierErrorCode: 'SHIPMENT.VALIDATION.FAILED' } });
    expect(refusal.details.reason).toBeUndefined();
  });
});

describe('what FedEx cannot take, named and never cut', () => {
  it('names address fields past the documents’ limits, a missing state and a bad ZIP', () => {
    const long = { ...US_TO, name: 'N'.repeat(71), line1: 'L'.repeat(36), city: 'C'.repeat(36), postcode: '3000' };
    expect(fedexAddressProblems(long, 'to').map((p) => p.path)).toEqual(['to.name', 'to.line1', 'to.city', 'to.postcode']);
    const { state: _state, ...stateless } = CA_TO;
    expect(fedexAddressProblems(stateless, 'to')).toEqual([{ path: 'to.state', message: 'is required for CA addresses at FedEx' }]);
    expect(fedexAddressProblems(US_FROM, 'from')).toEqual([]);
  });

  it('needs a phone on every purchase: ten digits in the US and Canada, ten to fifteen elsewhere', () => {
    const { phone: _phone, ...noPhone } = US_TO;
    expect(fedexContactProblems(noPhone, 'to')).toEqual([{ path: 'to.phone', message: 'is required by FedEx on every shipment' }]);
    expect(fedexContactProblems({ ...US_TO, phone: '555 0100' }, 'to').map((p) => p.path)).toEqual(['to.phone']);
    expect(fedexContactProblems({ ...US_TO, country: 'GB', phone: '+44 20 7946 0958' }, 'to')).toEqual([]);
    expect(fedexPhone('+1 (410) 555-0100', 'US')).toBe('4105550100');
  });

  it('names a side past 999 units, an invoice number past 30 characters and a unit value past 99999.99', () => {
    expect(fedexParcelProblems({ ...PARCEL, length_mm: 10_000_000 }, US_FROM, US_TO)).toEqual([{ path: 'parcel.length_mm', message: 'each side must be at most 999 IN for FedEx' }]);
    const customs = { ...CUSTOMS, invoice_number: 'I'.repeat(31), items: [{ ...CUSTOMS.items[0]!, quantity: 1, value: '100000.00' }] };
    expect(fedexCustomsProblems(customs).map((p) => p.path)).toEqual(['customs.invoice_number', 'customs.items[0].value']);
  });
});
