import { describe, expect, it } from 'vitest';
import {
  buildCancelRequest,
  buildPickupCancelRequest,
  buildPickupRequest,
  buildRateRequest,
  buildReferenceRequest,
  buildShipRequest,
  buildTrackRequest,
} from '../../../carriers/fedex/mapping.js';
import { FEDEX_SCHEMAS } from '../../../carriers/fedex/schemas/index.js';
import pickups from '../../../carriers/fedex/schemas/pickups.json' with { type: 'json' };
import pickupsCancel from '../../../carriers/fedex/schemas/pickups-cancel.json' with { type: 'json' };
import ratesQuotes from '../../../carriers/fedex/schemas/rates-quotes.json' with { type: 'json' };
import { fedexSchemaCheck } from '../../../tools/carrier-sim/fedex/schema-check.js';
import { ACCOUNT, CA_TO, CUSTOMS, PARCEL, RATE_RESPONSE, REFERENCE_RESPONSE, SHIP_RESPONSE, TRACK_NOT_FOUND, TRACK_RESPONSE, US_FROM, US_TO } from './payloads.js';

// Every request the mapping builds, checked against the schemas generated from FedEx's documents
// (carriers/fedex/schemas, `npm run carrier-schemas`) as the simulator checks them, which is the
// generated validators' own check (FEDEX_SCHEMAS[...].requestProblems): the schema's rules, and no
// field the document does not define. Then the same check failing on a broken one.

type WithExamples = 'rates-quotes' | 'pickups' | 'pickups-cancel';
const FEDEX_FILES: Record<WithExamples, { 'x-examples'?: unknown }> = {
  'rates-quotes': ratesQuotes,
  pickups,
  'pickups-cancel': pickupsCancel,
};

const window = { start: '2026-12-01T14:00:00Z', end: '2026-12-01T21:30:00Z' };
const requests = {
  rate: buildRateRequest({ from: US_FROM, to: CA_TO, parcel: PARCEL, service: 'all', accountNumber: ACCOUNT, options: { signature: 'adult', declared_value: '150.00', saturday_delivery: true }, currency: 'USD', isReturn: true }),
  ship: buildShipRequest({ reference: 'shp_01', serviceCode: 'fedex_international_priority', from: US_FROM, to: CA_TO, parcel: PARCEL, accountNumber: ACCOUNT, customs: CUSTOMS, options: { signature: 'required', declared_value: '80.00' }, currency: 'USD', isReturn: true, at: '2026-11-29T10:00:00Z' }),
  cancel: buildCancelRequest({ accountNumber: ACCOUNT, trackingNumber: '794953535000' }),
  track: buildTrackRequest('794953535000'),
  reference: buildReferenceRequest({ reference: 'shp_01', accountNumber: ACCOUNT, around: new Date('2026-11-29T10:00:00Z') }),
  pickup: buildPickupRequest({ reference: 'pck_1', address: US_FROM, window, count: 2, totalWeightG: 3_000, serviceCodes: ['fedex_2day'], destinationCountries: ['CA'], instructions: 'Ring', phone: US_FROM.phone, accountNumber: ACCOUNT, now: new Date('2026-11-29T12:00:00Z') }),
  pickup_cancel: buildPickupCancelRequest(ACCOUNT, { code: '3001', carrierCode: 'FDXE', location: 'BWIA', scheduledDate: '2026-12-01' }),
} as const;

describe('requests the FedEx mapping builds, against the generated request schemas', () => {
  for (const [operation, body] of Object.entries(requests)) {
    it(`${operation}: valid, and nothing the document does not define`, () => {
      expect(fedexSchemaCheck('request', operation as keyof typeof requests, body, 0)).toEqual([]);
    });
  }

  it('a domestic purchase with every option is valid too', () => {
    const body = buildShipRequest({ reference: 'shp_02', serviceCode: 'fedex_2day', from: US_FROM, to: US_TO, parcel: PARCEL, accountNumber: ACCOUNT, options: { signature: 'adult', saturday_delivery: true }, at: '2026-11-29T10:00:00Z' });
    expect(fedexSchemaCheck('request', 'ship', body, 0)).toEqual([]);
  });

  it('fails when a request breaks the schema: a wrong type, a value outside the list, a required field gone, a field of our own', () => {
    const ship = structuredClone(requests.ship) as any;
    ship.requestedShipment.totalWeight = '1.5';
    ship.requestedShipment.labelSpecification.imageType = 'GIF';
    delete ship.requestedShipment.shipper.contact.phoneNumber;
    ship.requestedShipment.recipients[0].contact.mobile = '6135550199';
    const problems = fedexSchemaCheck('request', 'ship', ship, 0);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/requestedShipment\/totalWeight must be number/),
        expect.stringMatching(/^\/requestedShipment\/labelSpecification\/imageType must be equal to one of the allowed values/),
        expect.stringMatching(/^\/requestedShipment\/shipper\/contact must have required property 'phoneNumber'/),
        '/requestedShipment/recipients/0/contact must NOT have unevaluated properties (mobile)',
      ]),
    );
    const rate = structuredClone(requests.rate) as any;
    rate.requestedShipment.recipient.address.streetLines = ['1 Sparks St'];
    expect(fedexSchemaCheck('request', 'rate', rate, 0)).toEqual(['/requestedShipment/recipient/address must NOT have unevaluated properties (streetLines)']);
  });
});

describe("FedEx's own request examples", () => {
  // Copied from the documents by the generator (`x-examples`), which refuses to write a file whose
  // examples break it; the same check here holds without the documents. The Rate and Pickup bodies
  // are "one of" the full schema and these samples until an erratum makes the full schema the body's.
  const examples = (name: WithExamples) => (FEDEX_FILES[name]['x-examples'] ?? []) as { pointer: string; value: unknown }[];

  it.each(['rates-quotes', 'pickups', 'pickups-cancel'] as const)('%s: every one copied fits the generated request validator, closed', (name) => {
    expect(examples(name).length).toBeGreaterThan(0);
    for (const { pointer, value } of examples(name)) expect(FEDEX_SCHEMAS[name].requestProblems(value), pointer).toEqual([]);
  });

  it("a pickup's address may say residential: FedEx's Address defines it, though the pickup's narrower address does not", () => {
    const [ground] = examples('pickups');
    const body = structuredClone(ground.value) as { originDetail: { pickupLocation: { address: Record<string, unknown> } } };
    body.originDetail.pickupLocation.address.residential = true;
    expect(FEDEX_SCHEMAS.pickups.requestProblems(body)).toEqual([]);
    body.originDetail.pickupLocation.address.floor = '2';
    expect(FEDEX_SCHEMAS.pickups.requestProblems(body)).toEqual(['/originDetail/pickupLocation/address must NOT have unevaluated properties (floor)']);
  });
});

describe('canned FedEx answers, against the generated response schemas', () => {
  it('are the documented shapes', () => {
    expect(fedexSchemaCheck('response', 'rate', RATE_RESPONSE, 200)).toEqual([]);
    expect(fedexSchemaCheck('response', 'ship', SHIP_RESPONSE, 200)).toEqual([]);
    expect(fedexSchemaCheck('response', 'track', TRACK_RESPONSE, 200)).toEqual([]);
    expect(fedexSchemaCheck('response', 'track', TRACK_NOT_FOUND, 200)).toEqual([]);
    expect(fedexSchemaCheck('response', 'reference', REFERENCE_RESPONSE, 200)).toEqual([]);
    expect(fedexSchemaCheck('response', 'ship', { transactionId: 't', errors: [{ code: 'NOT.FOUND.ERROR', message: 'gone' }] }, 404)).toEqual([]);
    expect(fedexSchemaCheck('response', 'ship', { output: { transactionShipments: 'none' } }, 200)).not.toEqual([]);
  });
});
