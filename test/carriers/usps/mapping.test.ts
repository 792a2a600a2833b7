import { describe, expect, it } from 'vitest';
import { readOAuthToken } from '../../../carriers/kit/index.js';
import { tokenRequest } from '../../../carriers/kit/auth.js';
import { uspsClientDeclaration } from '../../../carriers/usps/client.js';
import type { Address } from '../../../domain/index.js';
import {
  USPS_EVENT_STATUS,
  USPS_SERVICES,
  buildUspsLabelRequest,
  buildUspsPaymentAuthorizationRequest,
  buildUspsRateRequests,
  buildUspsReprintRequest,
  classifyUspsAnswer,
  gramsToPounds,
  millimetresToInches,
  parseUspsCancelRefusal,
  parseUspsCancelResponse,
  parseUspsLabelResponse,
  parseUspsMultipartLabel,
  parseUspsPaymentAuthorization,
  parseUspsRateResponse,
  parseUspsReprintResponse,
  parseUspsTracking,
  processingCategory,
  readUspsError,
  uspsAddressProblems,
  uspsDimensions,
  uspsIdempotencyKey,
  uspsServiceByCode,
  uspsServiceByMailClass,
  uspsTrackingStatus,
} from '../../../carriers/usps/mapping.js';
import { UspsTokenRequest } from '../../../carriers/usps/token.js';
import {
  BASE_RATE_RESPONSE,
  CANCEL_NOT_FOUND,
  CANCEL_REFUND_NOT_SUBMITTED,
  CANCEL_REFUND_SAME_DAY,
  EXPECTED_LABEL_REQUEST,
  EXPECTED_PAYMENT_REQUEST,
  EXPECTED_PRIORITY_RATE_QUERY,
  EXPECTED_TOKEN_REQUEST,
  FROM_US,
  LABEL_RESPONSE,
  MAILING_DATE,
  PARCEL_US,
  PAYMENT_RESPONSE,
  PDF_BASE64,
  REPRINT_RESPONSE,
  SHIPMENT_ID,
  TO_US,
  TRACKING_RESPONSE,
  cancelError,
} from './payloads.js';
import { LABELS_JSON, schemaProblems, uspsAnswerProblems, uspsRequestProblems } from './schema-check.js';

describe('USPS service table', () => {
  it('maps our three codes to the document mail classes and back', () => {
    expect(USPS_SERVICES.map((s) => [s.code, s.mailClass, s.rateIndicator])).toEqual([
      ['usps_ground_advantage', 'USPS_GROUND_ADVANTAGE', 'SP'],
      ['usps_priority_mail', 'PRIORITY_MAIL', 'SP'],
      ['usps_priority_mail_express', 'PRIORITY_MAIL_EXPRESS', 'PA'],
    ]);
    for (const s of USPS_SERVICES) expect(uspsServiceByMailClass(s.mailClass)).toBe(s);
    expect(uspsServiceByCode('ups_ground')).toBeUndefined();
  });
});

describe('USPS units', () => {
  it('rounds grams up to the hundredth of a pound without crossing a price break', () => {
    expect(gramsToPounds(453)).toBe(1); // under a pound stays at 1.00, priced as 1 lb
    expect(gramsToPounds(454)).toBe(1.01); // over a pound is over it
    expect(gramsToPounds(113)).toBe(0.25); // 3.99 oz: still the 4 oz band
    expect(gramsToPounds(114)).toBe(0.26);
    expect(gramsToPounds(2000)).toBe(4.41);
    expect(gramsToPounds(1)).toBe(0.01);
  });

  it('rounds millimetres up to the hundredth of an inch and orders length, width, height', () => {
    expect(millimetresToInches(254)).toBe(10);
    expect(millimetresToInches(255)).toBe(10.04);
    expect(uspsDimensions(PARCEL_US)).toEqual({ weight: 4.41, length: 11.82, width: 7.88, height: 3.94 });
  });

  it('calls a parcel machinable only within 22 × 18 × 15 in and 6 oz to 25 lb', () => {
    expect(processingCategory({ weight: 4.41, length: 11.82, width: 7.88, height: 3.94 })).toBe('MACHINABLE');
    expect(processingCategory({ weight: 4, length: 22.01, width: 7, height: 3 })).toBe('NONSTANDARD');
    expect(processingCategory({ weight: 25.01, length: 12, width: 7, height: 3 })).toBe('NONSTANDARD');
    expect(processingCategory({ weight: 0.3, length: 12, width: 7, height: 3 })).toBe('NONSTANDARD');
  });
});

describe('USPS address limits', () => {
  it('accepts the canned addresses', () => {
    expect(uspsAddressProblems(FROM_US, 'from')).toEqual([]);
    expect(uspsAddressProblems(TO_US, 'to')).toEqual([]);
  });

  it('names every field over a document limit, without truncating', () => {
    const long: Address = { ...FROM_US, name: 'N'.repeat(51), line1: 'L'.repeat(51), line2: 'S'.repeat(51), city: 'C'.repeat(29) };
    expect(uspsAddressProblems(long, 'from')).toEqual([
      { path: 'from.name', message: 'must be at most 50 characters for USPS' },
      { path: 'from.line1', message: 'must be at most 50 characters for USPS' },
      { path: 'from.line2', message: 'must be at most 50 characters for USPS' },
      { path: 'from.city', message: 'must be at most 28 characters for USPS' },
    ]);
    const atLimit: Address = { ...FROM_US, name: 'N'.repeat(50), line1: 'L'.repeat(50), line2: 'S'.repeat(50), city: 'C'.repeat(28) };
    expect(uspsAddressProblems(atLimit, 'from')).toEqual([]);
  });

  it('requires a US state code, a ZIP Code and a US address', () => {
    const { state: _state, ...noState } = TO_US;
    expect(uspsAddressProblems(noState, 'to')).toEqual([{ path: 'to.state', message: 'is required for USPS' }]);
    expect(uspsAddressProblems({ ...TO_US, state: 'ON' } as Address, 'to')).toEqual([
      { path: 'to.state', message: 'must be a two-letter USPS state code for USPS' },
    ]);
    expect(uspsAddressProblems({ ...TO_US, postcode: '6310' }, 'to')).toEqual([
      { path: 'to.postcode', message: 'must be a ZIP Code of 5 digits, or ZIP+4 as 12345-6789 for USPS' },
    ]);
    expect(uspsAddressProblems({ ...TO_US, country: 'CA' }, 'to')).toEqual([{ path: 'to.country', message: 'must be US (domestic shipments only) for USPS' }]);
    expect(uspsAddressProblems({ ...TO_US, state: 'PR', postcode: '00901' } as Address, 'to')).toEqual([]);
  });
});

describe('USPS OAuth and payments', () => {
  it('builds the client-credentials request and reads expires_in as a number or a string', () => {
    // The shared client builds it from USPS's declaration: client credentials in a JSON body.
    const { auth } = uspsClientDeclaration({ url: 'https://apis.usps.com', clientId: 'client-123', clientSecret: 'secret-456', crid: '1', mid: '123456', manifestMid: '123456', accountNumber: '1' });
    if (auth.kind !== 'oauth_client_credentials') throw new Error('USPS declares OAuth client credentials');
    const request = tokenRequest(auth);
    expect([request.method, request.path, request.form]).toEqual(['POST', '/oauth2/v3/token', undefined]);
    expect(request.body).toEqual(EXPECTED_TOKEN_REQUEST);
    expect(schemaProblems(UspsTokenRequest, request.body)).toEqual([]);
    const read = auth.readToken ?? readOAuthToken;
    expect(read({ access_token: 'abc', token_type: 'Bearer', expires_in: '28799' })).toEqual({ accessToken: 'abc', expiresInSeconds: 28799 });
    expect(read({ access_token: 'abc', expires_in: 3600 })).toEqual({ accessToken: 'abc', expiresInSeconds: 3600 });
    expect(read({ access_token: 'abc', expires_in: 'soon' })).toBeUndefined();
    expect(read({ expires_in: 3600 })).toBeUndefined();
  });

  it('builds the payment authorization with the PAYER and LABEL_OWNER roles', () => {
    const request = buildUspsPaymentAuthorizationRequest({ crid: '12345678', mid: '123456', manifestMid: '123456', accountNumber: '1000000000' });
    expect(request).toEqual(EXPECTED_PAYMENT_REQUEST);
    expect(uspsRequestProblems('payment-authorization', request)).toEqual([]);
    expect(uspsAnswerProblems('payment-authorization', 200, PAYMENT_RESPONSE)).toEqual([]);
    expect(parseUspsPaymentAuthorization(PAYMENT_RESPONSE)).toBe('header.body.signature');
    expect(uspsRequestProblems('payment-authorization', { roles: [{ ...EXPECTED_PAYMENT_REQUEST.roles[1], MID: '1234' }] })).not.toEqual([]);
  });
});

describe('USPS rating', () => {
  it('builds one base-rates search per mail class, field for field', () => {
    const requests = buildUspsRateRequests(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail', MAILING_DATE, { accountNumber: '1000000000' });
    expect(requests.map((r) => r.service.code)).toEqual(['usps_priority_mail']);
    expect(requests[0].body).toEqual(EXPECTED_PRIORITY_RATE_QUERY);
    expect(uspsRequestProblems('base-rates', requests[0].body)).toEqual([]);

    const all = buildUspsRateRequests(FROM_US, TO_US, PARCEL_US, 'all', MAILING_DATE);
    expect(all.map((r) => [r.body.mailClass, r.body.rateIndicator])).toEqual([
      ['USPS_GROUND_ADVANTAGE', 'SP'],
      ['PRIORITY_MAIL', 'SP'],
      ['PRIORITY_MAIL_EXPRESS', 'PA'],
    ]);
    for (const r of all) {
      expect(r.body).not.toHaveProperty('accountNumber');
      expect(uspsRequestProblems('base-rates', r.body)).toEqual([]);
    }
  });

  it('leaves out the services USPS would refuse for the parcel', () => {
    // 1700 × 300 × 300 mm: 66.93 + 2 × (11.82 + 11.82) = 114.21 in of length plus girth: over 108, under 130.
    const long = { weight_g: 5000, length_mm: 1700, width_mm: 300, height_mm: 300 };
    expect(buildUspsRateRequests(FROM_US, TO_US, long, 'all', MAILING_DATE).map((r) => r.service.code)).toEqual(['usps_ground_advantage']);
    const heavy = { ...PARCEL_US, weight_g: 32_000 };
    expect(buildUspsRateRequests(FROM_US, TO_US, heavy, 'all', MAILING_DATE)).toEqual([]);
    expect(buildUspsRateRequests(FROM_US, TO_US, PARCEL_US, 'ups_ground', MAILING_DATE)).toEqual([]);
  });

  it('reads totalBasePrice (rate plus fees) as the net price in cents', () => {
    expect(uspsAnswerProblems('base-rates', 200, BASE_RATE_RESPONSE)).toEqual([]);
    const service = uspsServiceByCode('usps_ground_advantage')!;
    expect(parseUspsRateResponse(service, BASE_RATE_RESPONSE)).toEqual({
      serviceCode: 'usps_ground_advantage',
      carrierServiceCode: 'USPS_GROUND_ADVANTAGE',
      net: 865,
      currency: 'USD',
      estimatedDeliveryDays: null,
    });
    expect(parseUspsRateResponse(service, { rates: [] })).toBeUndefined();
  });
});

describe('USPS labels', () => {
  it('keys a purchase with a UUID derived from our shipment id', () => {
    const key = uspsIdempotencyKey(SHIPMENT_ID);
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uspsIdempotencyKey(SHIPMENT_ID)).toBe(key);
    expect(uspsIdempotencyKey('shp_01hzx3k9q2abcdefghjkmnpqrt')).not.toBe(key);
  });

  it('builds the label request field for field', () => {
    const request = buildUspsLabelRequest({
      shipmentId: SHIPMENT_ID,
      serviceCode: 'usps_ground_advantage',
      from: FROM_US,
      to: TO_US,
      parcel: PARCEL_US,
      format: 'pdf',
      mailingDate: MAILING_DATE,
    });
    expect(request.idempotencyKey).toBe(uspsIdempotencyKey(SHIPMENT_ID));
    expect(request.body).toEqual(EXPECTED_LABEL_REQUEST);
    expect(uspsRequestProblems('label', request.body)).toEqual([]);
  });

  it('asks for ZPL at 203 dpi for our zpl format, and the same image on a reprint', () => {
    const request = buildUspsLabelRequest({ shipmentId: SHIPMENT_ID, serviceCode: 'usps_priority_mail_express', from: FROM_US, to: TO_US, parcel: PARCEL_US, format: 'zpl', mailingDate: MAILING_DATE });
    expect(request.body.imageInfo).toEqual({ imageType: 'ZPL203DPI', labelType: '4X6LABEL', receiptOption: 'NONE' });
    expect(request.body.packageDescription.rateIndicator).toBe('PA');
    expect(buildUspsReprintRequest('zpl')).toEqual({ imageInfo: { imageType: 'ZPL203DPI', labelType: '4X6LABEL' } });
    expect(uspsRequestProblems('label-reprint', buildUspsReprintRequest('pdf'))).toEqual([]);
  });

  it('refuses to build a purchase for an address USPS would refuse', () => {
    expect(() =>
      buildUspsLabelRequest({ shipmentId: SHIPMENT_ID, serviceCode: 'usps_priority_mail', from: FROM_US, to: { ...TO_US, city: 'C'.repeat(29) }, parcel: PARCEL_US, format: 'pdf', mailingDate: MAILING_DATE }),
    ).toThrow(/city must be at most 28 characters/);
  });

  it('parses the label answer, billing postage plus extra services', () => {
    expect(uspsAnswerProblems('label', 200, LABEL_RESPONSE, LABELS_JSON)).toEqual([]);
    expect(parseUspsLabelResponse(LABEL_RESPONSE, 'pdf')).toEqual({
      trackingNumber: '9205590006662200704797',
      label: { format: 'pdf', contentBase64: PDF_BASE64 },
      billed: { amount: 1099, currency: 'USD' },
      carrierShipmentId: '9205590006662200704797',
    });
    const withExtras = { ...LABEL_RESPONSE, postage: 26.25, extraServices: [{ name: 'Signature Confirmation', SKU: 'DXSU0EXPXCX0000', price: 3.7 }] };
    expect(parseUspsLabelResponse(withExtras, 'pdf')?.billed).toEqual({ amount: 2995, currency: 'USD' });
    expect(parseUspsLabelResponse({ ...LABEL_RESPONSE, postage: undefined }, 'pdf')?.billed).toBeNull();
    expect(parseUspsLabelResponse({ ...LABEL_RESPONSE, labelImage: undefined }, 'pdf')).toBeUndefined();
  });

  it('parses the multipart/form-data answer into the same label', () => {
    const { labelImage, ...metadata } = LABEL_RESPONSE;
    const text = [
      '--b0undary\r\nContent-Disposition: form-data; name="labelMetadata"\r\nContent-Type: application/json\r\n\r\n' + JSON.stringify(metadata) + '\r\n',
      '--b0undary\r\nContent-Disposition: attachment; name="labelImage"; filename="label.pdf"\r\nContent-Type: application/pdf\r\n\r\n' + labelImage + '\r\n',
      '--b0undary--\r\n',
    ].join('');
    expect(parseUspsMultipartLabel('multipart/form-data; boundary=b0undary', text, 'pdf')).toEqual(parseUspsLabelResponse(LABEL_RESPONSE, 'pdf'));
    expect(parseUspsMultipartLabel('application/json', text, 'pdf')).toBeUndefined();
  });

  it('parses the reprint answer into the same label', () => {
    expect(uspsAnswerProblems('label-reprint', 200, REPRINT_RESPONSE, LABELS_JSON)).toEqual([]);
    expect(parseUspsReprintResponse(REPRINT_RESPONSE, 'pdf')).toEqual(parseUspsLabelResponse(LABEL_RESPONSE, 'pdf'));
  });
});

describe('USPS cancellation', () => {
  it('reads CANCELED as cancelled and DISPUTED as a refund request', () => {
    const canceled = { trackingNumber: '9262593519935271903671', status: 'CANCELED' };
    const disputed = { trackingNumber: '9262593519935271903671', status: 'DISPUTED', disputeId: '103789' };
    expect(uspsAnswerProblems('label-cancel', 200, canceled)).toEqual([]);
    expect(uspsAnswerProblems('label-cancel', 200, disputed)).toEqual([]);
    expect(parseUspsCancelResponse(canceled)).toEqual({ kind: 'cancelled' });
    expect(parseUspsCancelResponse(disputed)).toEqual({ kind: 'refund_requested' });
    expect(parseUspsCancelResponse({ status: 'PENDING' })).toBeUndefined();
  });

  it('classifies the refusals from their text', () => {
    for (const body of [CANCEL_NOT_FOUND, CANCEL_REFUND_NOT_SUBMITTED, CANCEL_REFUND_SAME_DAY]) expect(uspsAnswerProblems('label-cancel', 400, body)).toEqual([]);
    expect(parseUspsCancelRefusal(400, CANCEL_REFUND_NOT_SUBMITTED)).toEqual({
      kind: 'refused',
      reason: 'already_scanned',
      message: 'A refund request for this order cannot be submitted',
    });
    expect(parseUspsCancelRefusal(400, CANCEL_REFUND_SAME_DAY)).toEqual({ kind: 'refund_requested' });
    expect(parseUspsCancelRefusal(400, cancelError('Label has been scanned and cannot be refunded'))).toMatchObject({ kind: 'refused', reason: 'already_scanned' });
    expect(parseUspsCancelRefusal(400, cancelError('This label is not eligible for cancellation'))).toMatchObject({ kind: 'refused', reason: 'not_cancellable' });
    // Not refusals of the cancellation: errors.
    expect(parseUspsCancelRefusal(400, CANCEL_NOT_FOUND)).toBeNull();
    expect(parseUspsCancelRefusal(400, cancelError('X-Payment-Authorization-Token is invalid'))).toBeNull();
    expect(parseUspsCancelRefusal(503, CANCEL_REFUND_NOT_SUBMITTED)).toBeNull();
  });
});

describe('USPS tracking', () => {
  it('parses the events oldest first, in UTC, keeping the USPS code', () => {
    expect(uspsAnswerProblems('tracking', 200, TRACKING_RESPONSE)).toEqual([]);
    expect(parseUspsTracking(TRACKING_RESPONSE)).toEqual([
      {
        id: 'GX:2026-07-01T13:12:00.000Z:20024',
        occurredAt: '2026-07-01T13:12:00.000Z',
        status: 'label_created',
        carrierCode: 'GX',
        description: 'Shipping Label Created, USPS Awaiting Item',
        location: { city: 'WASHINGTON', postcode: '20024', country: 'US' },
      },
      {
        id: '03:2026-07-01T20:05:00.000Z:20024',
        occurredAt: '2026-07-01T20:05:00.000Z',
        status: 'in_transit',
        carrierCode: '03',
        description: 'USPS picked up item',
        location: { city: 'WASHINGTON', postcode: '20024', country: 'US' },
      },
      {
        id: 'EF:2026-07-03T02:40:00.000Z:63155',
        occurredAt: '2026-07-03T02:40:00.000Z',
        status: 'in_transit',
        carrierCode: 'EF',
        description: 'Departed USPS Regional Facility',
        location: { city: 'SAINT LOUIS MO DISTRIBUTION CENTER', postcode: '63155', country: 'US' },
      },
      {
        id: 'OF:2026-07-03T11:10:00.000Z:63104',
        occurredAt: '2026-07-03T11:10:00.000Z',
        status: 'out_for_delivery',
        carrierCode: 'OF',
        description: 'Out for Delivery',
        location: { city: 'SAINT LOUIS', postcode: '63104', country: 'US' },
      },
      {
        id: '01:2026-07-03T17:01:00.000Z:63104',
        occurredAt: '2026-07-03T17:01:00.000Z',
        status: 'delivered',
        carrierCode: '01',
        description: 'Delivered, Front Door/Porch',
        location: { city: 'SAINT LOUIS', postcode: '63104', country: 'US' },
      },
    ]);
  });

  it('maps every code through the one table, unknown codes as in transit', () => {
    expect(uspsTrackingStatus('01')).toBe('delivered');
    expect(uspsTrackingStatus('OF')).toBe('out_for_delivery');
    expect(uspsTrackingStatus('MA')).toBe('label_created');
    expect(uspsTrackingStatus('21')).toBe('exception');
    expect(uspsTrackingStatus('55')).toBe('exception');
    expect(uspsTrackingStatus('Z9')).toBe('in_transit');
    expect(uspsTrackingStatus('constructor')).toBe('in_transit');
    expect(new Set(Object.values(USPS_EVENT_STATUS))).toEqual(new Set(['label_created', 'in_transit', 'out_for_delivery', 'delivered', 'exception']));
  });

  it('reads no events as no scans and an event without a time as unreadable', () => {
    expect(parseUspsTracking({ trackingNumber: '9205590006662200704797' })).toEqual([]);
    expect(parseUspsTracking({ trackingEvents: [{ eventCode: '10', eventType: 'Processed' }] })).toBeUndefined();
  });
});

describe('USPS error classification', () => {
  const body = (detail: string, code = '00000XX') => ({ apiVersion: '/labels/v3', error: { code: '400', message: 'Bad Request', errors: [{ code, detail }] } });

  it('keeps USPS code and words, and classes each status', () => {
    expect(readUspsError(body('ZIP Code is invalid'))).toEqual({ code: '00000XX', message: 'ZIP Code is invalid' });
    expect(readUspsError({ error: 'invalid_client', error_description: 'Client authentication failed' })).toEqual({ code: 'invalid_client', message: 'Client authentication failed' });
    expect(readUspsError({ error: { code: '503', message: 'Service Unavailable' } })).toEqual({ code: '503', message: 'Service Unavailable' });

    // A refusal in USPS's own words, for the customer; a fault names the call and its status too, for operators.
    expect(classifyUspsAnswer(400, body('ZIP Code is invalid'), true)).toMatchObject({ kind: 'definitive', message: 'ZIP Code is invalid', details: { status: 400, carrierErrorCode: '00000XX' } });
    expect(classifyUspsAnswer(400, body('Order not found'), false)).toMatchObject({ kind: 'definitive', details: { reason: 'not_found' } });
    expect(classifyUspsAnswer(404, {}, false)).toMatchObject({ kind: 'definitive', details: { reason: 'not_found', status: 404 } });
    expect(classifyUspsAnswer(401, { error: 'invalid_client' }, false)).toMatchObject({ kind: 'definitive', details: { carrierErrorCode: 'invalid_client' } });
    expect(classifyUspsAnswer(403, {}, false).kind).toBe('definitive');
    expect(classifyUspsAnswer(429, {}, true).kind).toBe('retryable');
    expect(classifyUspsAnswer(409, {}, true).kind).toBe('retryable');
    expect(classifyUspsAnswer(500, {}, true).kind).toBe('retryable');
    expect(classifyUspsAnswer(503, {}, false).kind).toBe('retryable');
    expect(classifyUspsAnswer(503, {}, true).kind).toBe('ambiguous');
    expect(classifyUspsAnswer(504, undefined, true).kind).toBe('ambiguous');
    // Words of a missing label in a fault are not a refusal.
    expect(classifyUspsAnswer(503, body('Order not found'), false).details.reason).toBeUndefined();
  });
});
