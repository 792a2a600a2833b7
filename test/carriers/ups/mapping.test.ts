import { describe, expect, it } from 'vitest';
import {
  buildLabelRecoveryRequest,
  buildRateRequest,
  buildShipRequest,
  buildVoidRequest,
  cancelOutcomeFromError,
  classifyUpsAnswer,
  ourUpsServiceCode,
  parseLabelRecoveryResponse,
  parseRateResponse,
  parseReferenceTrackResponse,
  parseShipResponse,
  parseTrackResponse,
  parseVoidResponse,
  readUpsError,
  upsAddressProblems,
  upsCarrierServiceCode,
  upsParcelProblems,
  UPS_SERVICES,
  UPS_STATUS_TYPES,
} from '../../../carriers/ups/mapping.js';
import type { Address } from '../../../domain/index.js';
import { upsAnswerProblems, upsRequestProblems } from './schema-problems.js';
import {
  ACCOUNT,
  GB_FROM,
  GB_TO,
  PARCEL,
  RATE_SHOP_ANSWER,
  RECOVERY_ANSWER,
  SHIP_ANSWER,
  SHIPMENT_ID,
  TRACK_ANSWER,
  UPS_ERROR,
  US_FROM,
  US_TO,
  VOID_ANSWER,
} from './payloads.js';

const US_FROM_UPS = { AddressLine: ['2311 York Rd', 'Suite 200'], City: 'Timonium', StateProvinceCode: 'MD', PostalCode: '21093', CountryCode: 'US' };
const US_TO_UPS = { AddressLine: ['123 Main St'], City: 'Alpharetta', StateProvinceCode: 'GA', PostalCode: '300051234', CountryCode: 'US' };
const US_PACKAGE_MEASURES = {
  Dimensions: { UnitOfMeasurement: { Code: 'IN', Description: 'Inches' }, Length: '12', Width: '8', Height: '6' },
  PackageWeight: { UnitOfMeasurement: { Code: 'LBS', Description: 'Pounds' }, Weight: '5.6' },
};

describe('UPS service table', () => {
  it('is the contract list, both ways', () => {
    expect(UPS_SERVICES.map((s) => [s.code, s.carrierCode])).toEqual([
      ['ups_ground', '03'],
      ['ups_next_day_air', '01'],
      ['ups_2nd_day_air', '02'],
      ['ups_3_day_select', '12'],
      ['ups_standard', '11'],
      ['ups_saver', '65'],
      ['ups_express', '07'],
      ['ups_expedited', '08'],
    ]);
    for (const s of UPS_SERVICES) expect(ourUpsServiceCode(upsCarrierServiceCode(s.code)!)).toBe(s.code);
    expect(ourUpsServiceCode('13')).toBeUndefined();
    expect(upsCarrierServiceCode('acme_ground')).toBeUndefined();
  });
});

describe('UPS rating', () => {
  it('builds a Shop request for every service, field for field, valid against the schema', () => {
    const { requestOption, path, body } = buildRateRequest({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all', accountNumber: ACCOUNT });
    expect(requestOption).toBe('Shop');
    expect(path).toBe('/rating/v2409/Shop');
    expect(body).toEqual({
      RateRequest: {
        Request: { RequestOption: 'Shop', SubVersion: '2409' },
        Shipment: {
          Shipper: { Name: 'Acme Widgets', ShipperNumber: 'A1B2C3', Address: US_FROM_UPS },
          // No company: a person's address, flagged residential so its surcharge is priced.
          ShipTo: { Name: 'Happy Dog Pet Supply', Address: { ...US_TO_UPS, ResidentialAddressIndicator: '' } },
          PaymentDetails: { ShipmentCharge: [{ Type: '01', BillShipper: { AccountNumber: 'A1B2C3' } }] },
          Package: [{ PackagingType: { Code: '02', Description: 'Package' }, ...US_PACKAGE_MEASURES }],
          ShipmentRatingOptions: { NegotiatedRatesIndicator: '' },
        },
      },
    });
    expect(upsRequestProblems('rating', body)).toEqual([]);
  });

  it('builds a Rate request for one service in metric units off the US', () => {
    const { path, body } = buildRateRequest({ from: GB_FROM, to: GB_TO, parcel: PARCEL, service: 'ups_standard', accountNumber: ACCOUNT });
    expect(path).toBe('/rating/v2409/Rate');
    expect(body.RateRequest.Request.RequestOption).toBe('Rate');
    expect(body.RateRequest.Shipment.Service).toEqual({ Code: '11' });
    expect(body.RateRequest.Shipment.ShipTo.Address).toEqual({ AddressLine: ['5 Deansgate'], City: 'Manchester', PostalCode: 'M32BW', CountryCode: 'GB', ResidentialAddressIndicator: '' });
    expect(body.RateRequest.Shipment.Package[0]).toEqual({
      PackagingType: { Code: '02', Description: 'Package' },
      Dimensions: { UnitOfMeasurement: { Code: 'CM', Description: 'Centimeters' }, Length: '30', Width: '20', Height: '15' },
      PackageWeight: { UnitOfMeasurement: { Code: 'KGS', Description: 'Kilograms' }, Weight: '2.5' },
    });
    expect(upsRequestProblems('rating', body)).toEqual([]);
    expect(() => buildRateRequest({ from: GB_FROM, to: GB_TO, parcel: PARCEL, service: 'acme_ground', accountNumber: ACCOUNT })).toThrow(/not a UPS service/);
  });

  it('the schema holds the document rules UPS examples break: arrays and RequestOption', () => {
    const { body } = buildRateRequest({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all', accountNumber: ACCOUNT });
    const broken = structuredClone(body) as any;
    broken.RateRequest.Shipment.Package = broken.RateRequest.Shipment.Package[0];
    broken.RateRequest.Shipment.ShipTo.Address.AddressLine = '123 Main St';
    delete broken.RateRequest.Request.RequestOption;
    const errors = upsRequestProblems('rating', broken).join('\n');
    expect(errors).toMatch(/Package must be array/);
    expect(errors).toMatch(/AddressLine must be array/);
    expect(errors).toMatch(/RequestOption/);
  });

  it('a request our mapping builds that breaks the generated schema fails: a field the document does not define, a length it does not allow', () => {
    const { body } = buildRateRequest({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all', accountNumber: ACCOUNT });
    const extra = structuredClone(body) as any;
    extra.RateRequest.Shipment.Shipper.Nickname = 'HQ';
    expect(upsRequestProblems('rating', extra)).toEqual(['/RateRequest/Shipment/Shipper must NOT have unevaluated properties (Nickname)']);
    const long = structuredClone(body) as any;
    long.RateRequest.Shipment.Shipper.ShipperNumber = 'A1B2C3D';
    expect(upsRequestProblems('rating', long)).toEqual(['/RateRequest/Shipment/Shipper/ShipperNumber must NOT have more than 6 characters']);
  });

  it('parses a Shop answer into our services, negotiated price first, UPS services we do not sell left out', () => {
    expect(upsAnswerProblems('rating', 200, RATE_SHOP_ANSWER)).toEqual([]);
    expect(parseRateResponse(RATE_SHOP_ANSWER)).toEqual([
      { serviceCode: 'ups_ground', carrierServiceCode: '03', net: 1312, currency: 'USD', estimatedDeliveryDays: 3 },
      { serviceCode: 'ups_next_day_air', carrierServiceCode: '01', net: 7120, currency: 'USD', estimatedDeliveryDays: 1 },
      { serviceCode: 'ups_3_day_select', carrierServiceCode: '12', net: 3040, currency: 'USD', estimatedDeliveryDays: null },
    ]);
  });

  it('refuses an answer whose amount it cannot read, or that is not the documented shape', () => {
    const bad = structuredClone(RATE_SHOP_ANSWER);
    bad.RateResponse.RatedShipment[1].TotalCharges.MonetaryValue = '71.2O';
    expect(parseRateResponse(bad)).toBeUndefined();
    expect(parseRateResponse({ RateResponse: { RatedShipment: {} } })).toBeUndefined();
  });
});

describe('UPS shipping', () => {
  it('builds a ship request (US to US, ZPL), field for field, with our id as the package reference', () => {
    const { path, body } = buildShipRequest({
      reference: SHIPMENT_ID,
      serviceCode: 'ups_ground',
      from: US_FROM,
      to: US_TO,
      parcel: PARCEL,
      labelFormat: 'zpl',
      accountNumber: ACCOUNT,
    });
    expect(path).toBe('/shipments/v2409/ship');
    expect(body).toEqual({
      ShipmentRequest: {
        Request: { RequestOption: 'validate', SubVersion: '2409' },
        Shipment: {
          Shipper: { Name: 'Acme Widgets', ShipperNumber: 'A1B2C3', Address: US_FROM_UPS },
          // No company: a person's address, flagged residential so its surcharge is priced.
          ShipTo: { Name: 'Happy Dog Pet Supply', Address: { ...US_TO_UPS, ResidentialAddressIndicator: '' } },
          PaymentInformation: { ShipmentCharge: [{ Type: '01', BillShipper: { AccountNumber: 'A1B2C3' } }] },
          ShipmentRatingOptions: { NegotiatedRatesIndicator: '' },
          Service: { Code: '03' },
          Package: [
            {
              Packaging: { Code: '02', Description: 'Customer Supplied Package' },
              ...US_PACKAGE_MEASURES,
              ReferenceNumber: [{ Value: SHIPMENT_ID }],
            },
          ],
        },
        LabelSpecification: { LabelImageFormat: { Code: 'ZPL' }, LabelStockSize: { Height: '6', Width: '4' } },
      },
    });
    expect(upsRequestProblems('shipments', body)).toEqual([]);
  });

  it('off US/US the reference goes on the shipment, and a GIF asks with a browser user agent', () => {
    const { body } = buildShipRequest({ reference: SHIPMENT_ID, serviceCode: 'ups_saver', from: GB_FROM, to: GB_TO, parcel: PARCEL, labelFormat: 'gif', accountNumber: ACCOUNT });
    const shipment = body.ShipmentRequest.Shipment;
    expect(shipment.ReferenceNumber).toEqual([{ Value: SHIPMENT_ID }]);
    expect(shipment.Package[0].ReferenceNumber).toBeUndefined();
    expect(shipment.Service).toEqual({ Code: '65' });
    expect(body.ShipmentRequest.LabelSpecification).toEqual({
      LabelImageFormat: { Code: 'GIF' },
      HTTPUserAgent: 'Mozilla/4.5',
      LabelStockSize: { Height: '6', Width: '4' },
    });
    expect(upsRequestProblems('shipments', body)).toEqual([]);
  });

  it('parses the ship answer: tracking number, label, billed (negotiated total), UPS shipment id', () => {
    expect(upsAnswerProblems('shipments', 200, SHIP_ANSWER)).toEqual([]);
    expect(parseShipResponse(SHIP_ANSWER)).toEqual({
      trackingNumber: '1ZA1B2C30312345675',
      label: { format: 'zpl', contentBase64: 'XlhBXkZPNTAsNTBeRkQxWkExQjJDMzAzMTIzNDU2NzVeRlNeWFo=' },
      billed: { amount: 1312, currency: 'USD' },
      carrierShipmentId: '1ZA1B2C30312345675',
    });
    const published = structuredClone(SHIP_ANSWER) as any;
    delete published.ShipmentResponse.ShipmentResults.NegotiatedRateCharges;
    expect(parseShipResponse(published)?.billed).toEqual({ amount: 1458, currency: 'USD' });
    delete published.ShipmentResponse.ShipmentResults.ShipmentCharges;
    expect(parseShipResponse(published)?.billed).toBeNull();
    delete published.ShipmentResponse.ShipmentResults.PackageResults[0].ShippingLabel;
    expect(parseShipResponse(published)).toBeUndefined();
  });

  it('voids by UPS shipment id and reads the outcome', () => {
    expect(buildVoidRequest('1ZA1B2C30312345675')).toEqual({ method: 'DELETE', path: '/shipments/v2409/void/cancel/1ZA1B2C30312345675' });
    expect(upsAnswerProblems('void', 200, VOID_ANSWER)).toEqual([]);
    expect(parseVoidResponse(VOID_ANSWER)).toEqual({ kind: 'cancelled' });
    const notVoided = structuredClone(VOID_ANSWER);
    notVoided.VoidShipmentResponse.SummaryResult.Status = { Code: '0', Description: 'Not Voided' };
    expect(parseVoidResponse(notVoided)).toEqual({ kind: 'refused', reason: 'not_cancellable', message: 'Not Voided' });
  });

  it('a void refused in words of a scan is already_scanned; other refusals not_cancellable; faults are not refusals', () => {
    const scanned = UPS_ERROR('190117', 'The package has already been picked up or is in transit and cannot be voided.');
    expect(upsAnswerProblems('void', 400, scanned)).toEqual([]);
    expect(cancelOutcomeFromError(classifyUpsAnswer(400, scanned, 'void'))).toEqual({ kind: 'refused', reason: 'already_scanned', message: scanned.response.errors[0].message });
    expect(cancelOutcomeFromError(classifyUpsAnswer(400, UPS_ERROR('190102', 'No shipment found within the allowed void period'), 'void'))).toEqual({
      kind: 'refused',
      reason: 'not_cancellable',
      message: 'No shipment found within the allowed void period',
    });
    expect(cancelOutcomeFromError(classifyUpsAnswer(429, UPS_ERROR('10429', 'Too Many Requests'), 'void'))).toBeUndefined();
    expect(cancelOutcomeFromError(classifyUpsAnswer(503, {}, 'void'))).toBeUndefined();
    expect(cancelOutcomeFromError(classifyUpsAnswer(401, UPS_ERROR('250002', 'Invalid Authentication Information.'), 'void'))).toBeUndefined();
  });

  it('recovers a label in another format, the schema satisfied with the same package named everywhere', () => {
    const { path, body } = buildLabelRecoveryRequest({ trackingNumber: '1ZA1B2C30312345675', reference: SHIPMENT_ID, accountNumber: ACCOUNT, labelFormat: 'gif' });
    expect(path).toBe('/labels/v1/recovery');
    expect(body).toEqual({
      LabelRecoveryRequest: {
        Request: {},
        LabelSpecification: { HTTPUserAgent: 'Mozilla/4.5', LabelImageFormat: { Code: 'GIF' } },
        TrackingNumber: '1ZA1B2C30312345675',
        TrackingNumbers: ['1ZA1B2C30312345675'],
        ReferenceValues: { ReferenceNumber: { Value: SHIPMENT_ID }, ShipperNumber: 'A1B2C3' },
      },
    });
    expect(upsRequestProblems('label-recovery', body)).toEqual([]);
    expect(upsAnswerProblems('label-recovery', 200, RECOVERY_ANSWER)).toEqual([]);
    expect(parseLabelRecoveryResponse(RECOVERY_ANSWER, '1ZA1B2C30312345675')).toEqual({ format: 'gif', contentBase64: 'R0lGODlhAQABAAAAACw=' });
  });
});

describe('UPS tracking', () => {
  it('parses activities into scans oldest first, UTC, with UPS type kept; unknown types left out', () => {
    expect(upsAnswerProblems('tracking-details', 200, TRACK_ANSWER)).toEqual([]);
    const tn = '1ZA1B2C30312345675';
    const scans = parseTrackResponse(TRACK_ANSWER, tn);
    expect(scans).toEqual([
      { id: `${tn}:2026-07-11T13:30:00Z:M:MP`, occurredAt: '2026-07-11T13:30:00Z', status: 'label_created', carrierCode: 'M', description: 'Shipper created a label, UPS has not received the package yet.', location: { city: '', postcode: '', country: 'US' } },
      { id: `${tn}:2026-07-11T21:00:00Z:P:PU`, occurredAt: '2026-07-11T21:00:00Z', status: 'in_transit', carrierCode: 'P', description: 'Pickup Scan', location: { city: 'Timonium', postcode: '21093', country: 'US' } },
      { id: `${tn}:2026-07-12T07:15:00Z:I:DP`, occurredAt: '2026-07-12T07:15:00Z', status: 'in_transit', carrierCode: 'I', description: 'Departed from Facility', location: { city: 'Baltimore', postcode: '21226', country: 'US' } },
      { id: `${tn}:2026-07-13T20:30:00Z:X:RS`, occurredAt: '2026-07-13T20:30:00Z', status: 'exception', carrierCode: 'X', description: 'The receiver was not available for delivery.', location: { city: 'Atlanta', postcode: '30336', country: 'US' } },
      { id: `${tn}:2026-07-14T11:47:00Z:O:OT`, occurredAt: '2026-07-14T11:47:00Z', status: 'out_for_delivery', carrierCode: 'O', description: 'Out For Delivery Today', location: { city: 'Alpharetta', postcode: '30005', country: 'US' } },
      { id: `${tn}:2026-07-14T18:30:00Z:D:FS`, occurredAt: '2026-07-14T18:30:00Z', status: 'delivered', carrierCode: 'D', description: 'DELIVERED', location: { city: 'Alpharetta', postcode: '30005', country: 'US' } },
    ]);
    // The same answer read again gives the same ids: a scan seen twice is stored once.
    expect(parseTrackResponse(structuredClone(TRACK_ANSWER), tn)?.map((s) => s.id)).toEqual(scans?.map((s) => s.id));
  });

  it('keeps UPS sequence for scans of the same second (a label voided the moment it was made)', () => {
    const at = { date: '20260711', time: '093000', gmtDate: '20260711', gmtTime: '093000', gmtOffset: '+00:00' };
    const answer = {
      trackResponse: {
        shipment: [{ package: [{ trackingNumber: '1ZA1B2C30312345675', activity: [
          { ...at, status: { type: 'MV', code: 'MV', description: 'Voided Information Received' } },
          { ...at, status: { type: 'M', code: 'MP', description: 'Shipper created a label' } },
        ] }] }],
      },
    };
    expect(parseTrackResponse(answer, '1ZA1B2C30312345675')?.map((s) => s.status)).toEqual(['label_created', 'cancelled']);
  });

  it('maps every UPS status type through one table', () => {
    expect(UPS_STATUS_TYPES).toEqual({
      M: 'label_created',
      MV: 'cancelled',
      P: 'in_transit',
      I: 'in_transit',
      W: 'in_transit',
      DO: 'in_transit',
      DD: 'in_transit',
      O: 'out_for_delivery',
      X: 'exception',
      RS: 'exception',
      D: 'delivered',
    });
  });

  it('refuses an activity without a readable time', () => {
    const bad = structuredClone(TRACK_ANSWER) as any;
    delete bad.trackResponse.shipment[0].package[0].activity[0].gmtTime;
    delete bad.trackResponse.shipment[0].package[0].activity[0].gmtOffset;
    expect(parseTrackResponse(bad, '1ZA1B2C30312345675')).toBeUndefined();
  });

  it('a reference lookup finds only packages carrying exactly our reference', () => {
    const answer = structuredClone(TRACK_ANSWER) as any;
    answer.trackResponse.shipment[0].package.push({ trackingNumber: '1ZA1B2C30399999991', referenceNumber: [{ type: 'PACKAGE', number: `${SHIPMENT_ID}x` }] });
    expect(parseReferenceTrackResponse(answer, SHIPMENT_ID)).toEqual([{ trackingNumber: '1ZA1B2C30312345675', voided: false }]);
    answer.trackResponse.shipment[0].package[0].currentStatus = { type: 'MV', description: 'Voided Information Received' };
    expect(parseReferenceTrackResponse(answer, SHIPMENT_ID)).toEqual([{ trackingNumber: '1ZA1B2C30312345675', voided: true }]);
  });
});

describe('UPS error classification', () => {
  const err = (code: string, message: string) => readUpsError(UPS_ERROR(code, message));
  it('reads UPS error bodies, and nothing from other shapes', () => {
    expect(err('250002', 'Invalid Authentication Information.')).toEqual({ code: '250002', message: 'Invalid Authentication Information.' });
    expect(readUpsError({ error: 'x' })).toEqual({});
    expect(readUpsError('<html>')).toEqual({});
  });

  it.each([
    [429, 'rate', 'retryable'],
    [429, 'ship', 'retryable'],
    [500, 'ship', 'retryable'],
    [503, 'track', 'retryable'],
    [503, 'ship', 'ambiguous'],
    [504, 'void', 'ambiguous'],
    [502, 'rate', 'retryable'],
    [409, 'ship', 'retryable'],
    [400, 'ship', 'definitive'],
    [401, 'rate', 'definitive'],
    [403, 'ship', 'definitive'],
  ] as const)('HTTP %i on %s is %s', (status, operation, kind) => {
    const c = classifyUpsAnswer(status, UPS_ERROR('120100', 'Missing or invalid shipper number'), operation);
    expect(c.kind).toBe(kind);
    expect(c.details.carrierErrorCode).toBe('120100');
    // A refusal in UPS's own words, for the customer; a fault names the call and its status too, for operators.
    if (kind === 'definitive') expect(c.message).toBe('Missing or invalid shipper number');
    else expect(c.message).toMatch(new RegExp(`^UPS ${operation}: HTTP ${status}: Missing or invalid shipper number`));
  });

  it('a 404 is not_found; a scanned void is already_scanned, and only on a void', () => {
    expect(classifyUpsAnswer(404, UPS_ERROR('TW0001', 'Tracking Information Not Found'), 'track')).toMatchObject({ kind: 'definitive', details: { reason: 'not_found', carrierErrorCode: 'TW0001' } });
    const scanned = UPS_ERROR('190117', 'The package has already been picked up or is in transit and cannot be voided.');
    expect(classifyUpsAnswer(400, scanned, 'void').details.reason).toBe('already_scanned');
    expect(classifyUpsAnswer(400, scanned, 'ship').details.reason).toBeUndefined();
    // A scan's words in a fault are not a refusal.
    const fault = classifyUpsAnswer(503, scanned, 'void');
    expect([fault.kind, fault.details.reason]).toEqual(['ambiguous', undefined]);
    expect(classifyUpsAnswer(400, {}, 'void')).toMatchObject({ kind: 'definitive', message: 'UPS void: HTTP 400', details: { status: 400, carrierCode: 'ups' } });
  });
});

describe('UPS address limits', () => {
  const ok: Address = { ...US_TO };
  it('accepts an address within every limit', () => {
    expect(upsAddressProblems(US_FROM, 'from')).toEqual([]);
    expect(upsAddressProblems(ok, 'to')).toEqual([]);
    expect(upsAddressProblems(GB_TO, 'to')).toEqual([]);
    expect(upsAddressProblems({ ...GB_TO, country: 'CA', state: 'ON', postcode: 'k1a 0b1' } as Address, 'to')).toEqual([]);
  });

  it('names each field over its UPS limit, never shortening it', () => {
    const long: Address = { name: 'N'.repeat(36), line1: 'L'.repeat(36), line2: 'M'.repeat(36), city: 'C'.repeat(31), postcode: '1234567890', country: 'DE' };
    expect(upsAddressProblems(long, 'to')).toEqual([
      { path: 'to.name', message: 'must be at most 35 characters for UPS' },
      { path: 'to.line1', message: 'must be at most 35 characters for UPS' },
      { path: 'to.line2', message: 'must be at most 35 characters for UPS' },
      { path: 'to.city', message: 'must be at most 30 characters for UPS' },
      { path: 'to.postcode', message: 'must be at most 9 letters and digits for UPS' },
    ]);
    expect(long.name).toHaveLength(36);
    expect(upsAddressProblems({ ...long, name: 'N'.repeat(35), line1: 'L'.repeat(35), line2: undefined, city: 'C'.repeat(30), postcode: '123456789' }, 'to')).toEqual([]);
  });

  it('wants a state for US and CA, two characters everywhere (Rating takes 2), and US/CA postcodes in their forms', () => {
    const { state: _state, ...noState } = US_TO as Address & { state?: string };
    expect(upsAddressProblems(noState as Address, 'to')).toEqual([{ path: 'to.state', message: 'is required for US addresses at UPS' }]);
    expect(upsAddressProblems({ ...GB_TO, state: 'LND' } as Address, 'to')).toEqual([{ path: 'to.state', message: 'must be at most 2 characters for UPS' }]);
    expect(upsAddressProblems({ ...US_TO, state: 'G1' } as Address, 'to')).toEqual([{ path: 'to.state', message: 'must be a two-letter state code for UPS' }]);
    expect(upsAddressProblems({ ...US_TO, postcode: '3000' }, 'to')).toEqual([{ path: 'to.postcode', message: 'must be 5 or 9 digits for US addresses at UPS' }]);
    expect(upsAddressProblems({ ...GB_TO, country: 'CA', state: 'ON', postcode: '123456' } as Address, 'to')).toEqual([
      { path: 'to.postcode', message: 'must be 6 characters in the form A1A1A1 for CA addresses at UPS' },
    ]);
  });

  it('checks the parcel against UPS dimension limits in the origin units', () => {
    expect(upsParcelProblems(PARCEL, 'US')).toEqual([]);
    expect(upsParcelProblems({ weight_g: 1000, length_mm: 2000, width_mm: 800, height_mm: 800 }, 'US')).toEqual([
      { path: 'parcel', message: 'length plus girth must be at most 165 IN for UPS' },
    ]);
    expect(upsParcelProblems({ weight_g: 1000, length_mm: 2000, width_mm: 100, height_mm: 100 }, 'DE')).toEqual([]);
    expect(upsParcelProblems({ weight_g: 1000, length_mm: 2000, width_mm: 700, height_mm: 700 }, 'DE')).toEqual([
      { path: 'parcel', message: 'length plus girth must be at most 330 CM for UPS' },
    ]);
  });
});
