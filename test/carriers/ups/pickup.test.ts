import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsAdapterOn } from '../../../carriers/ups/adapter.js';
import { createUpsClient } from '../../../carriers/ups/client.js';
import { buildUpsPickupRequest, parseUpsPickupCancelResponse, parseUpsPickupResponse, upsPickupProblems } from '../../../carriers/ups/mapping-pickup.js';
import { CarrierError } from '../../../carriers/types.js';
import { startUpsSimulator } from '../../../tools/carrier-sim/ups/index.js';
import { upsAnswerProblems, upsRequestProblems } from './schema-problems.js';
import { ACCOUNT, US_TO } from './payloads.js';

const START = Date.parse('2026-07-11T12:00:00Z');
const SITE = { name: 'Acme Widgets', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' };
const WINDOW = { start: '2026-07-13T13:00:00.000Z', end: '2026-07-13T21:30:00.000Z' };
let server: Awaited<ReturnType<typeof startUpsSimulator>>;

beforeAll(async () => {
  server = await startUpsSimulator({
    accountNumber: ACCOUNT,
    clock: () => START,
  });
});
afterAll(() => server.close());

const client = () => createUpsClient({ url: server.url, clientId: 'sim-client-id', clientSecret: 'sim-client-secret', accountNumber: ACCOUNT, now: () => START, timeoutMs: 2_000 });

describe('UPS Pickup payloads, from Pickup.yaml', () => {
  it('a creation request is rated, paid by the shipper account and counts pieces per service', () => {
    const body = buildUpsPickupRequest({
      reference: 'pck_01j0000000000000000000000a',
      address: SITE,
      window: WINDOW,
      count: 3,
      totalWeightG: 4000,
      serviceCodes: ['ups_ground', 'ups_ground', 'ups_next_day_air'],
      destinationCountries: ['US'],
      instructions: 'Rear dock',
      phone: '4105551234',
      accountNumber: ACCOUNT,
    });
    expect(body).toEqual({
      PickupCreationRequest: {
        Request: { TransactionReference: { CustomerContext: 'pck_01j0000000000000000000000a' } },
        RatePickupIndicator: 'Y',
        Shipper: { Account: { AccountNumber: ACCOUNT, AccountCountryCode: 'US' } },
        // Timonium, Maryland keeps Eastern daylight time in July: 13:00Z is 09:00 there.
        PickupDateInfo: { ReadyTime: '0900', CloseTime: '1730', PickupDate: '20260713' },
        PickupAddress: {
          CompanyName: 'Acme Widgets',
          ContactName: 'Acme Widgets',
          AddressLine: ['2311 York Rd'],
          City: 'Timonium',
          StateProvince: 'MD',
          PostalCode: '21093',
          CountryCode: 'US',
          ResidentialIndicator: 'N',
          Phone: { Number: '4105551234' },
        },
        AlternateAddressIndicator: 'Y',
        PickupPiece: [
          { ServiceCode: '003', Quantity: '2', DestinationCountryCode: 'US', ContainerCode: '01' },
          { ServiceCode: '001', Quantity: '1', DestinationCountryCode: 'US', ContainerCode: '01' },
        ],
        TotalWeight: { Weight: '0008.9', UnitOfMeasurement: 'LBS' },
        OverweightIndicator: 'N',
        PaymentMethod: '01',
        SpecialInstruction: 'Rear dock',
        ReferenceNumber: 'pck_01j0000000000000000000000a',
      },
    });
    expect(upsRequestProblems('pickup-creation', body)).toEqual([]);
  });

  it('reads the PRN and the rated charge of a creation answer', () => {
    const answer = {
      PickupCreationResponse: {
        Response: { ResponseStatus: { Code: '1', Description: 'Success' } },
        PRN: '2929602E9CP',
        RateStatus: { Code: '01', Description: 'Rate available' },
        RateResult: { RateType: 'FD', CurrencyCode: 'USD', GrandTotalOfAllCharge: '8.75', ChargeDetail: [{ ChargeCode: 'B', ChargeAmount: '8.75' }] },
      },
    };
    expect(upsAnswerProblems('pickup-creation', 200, answer)).toEqual([]);
    expect(parseUpsPickupResponse(answer)).toEqual({ prn: '2929602E9CP', fee: { amount: 875, currency: 'USD' } });
    const unrated = { PickupCreationResponse: { ...answer.PickupCreationResponse, RateStatus: { Code: '04' }, RateResult: undefined } };
    expect(parseUpsPickupResponse(JSON.parse(JSON.stringify(unrated)))).toEqual({ prn: '2929602E9CP', fee: null });
    expect(parseUpsPickupCancelResponse({ PickupCancelResponse: { Response: { ResponseStatus: { Code: '1', Description: 'Success' } }, PickupType: '01' } })).toBe(true);
  });

  it("sends the pickup location's local times and date, and the total weight in the schema's six characters", () => {
    const input = {
      reference: 'pck_01j0000000000000000000000b',
      count: 1,
      totalWeightG: 20,
      serviceCodes: ['ups_ground'],
      destinationCountries: [],
      phone: '2125551234',
      accountNumber: ACCOUNT,
    };
    const newYork = { name: 'Gotham Goods', line1: '350 5th Ave', city: 'New York', state: 'NY', postcode: '10118', country: 'US' };
    // 10:00 to 16:00 in New York in January (EST, UTC-5): never the UTC 1500 and 2100.
    const winter = buildUpsPickupRequest({ ...input, address: newYork, window: { start: '2027-01-12T15:00:00.000Z', end: '2027-01-12T21:00:00.000Z' } }).PickupCreationRequest;
    expect(winter.PickupDateInfo).toEqual({ ReadyTime: '1000', CloseTime: '1600', PickupDate: '20270112' });
    expect(winter.TotalWeight).toEqual({ Weight: '0000.1', UnitOfMeasurement: 'LBS' });
    expect(upsRequestProblems('pickup-creation', { PickupCreationRequest: winter })).toEqual([]);
    // Honolulu's afternoon is the next day in UTC: the local date is the one sent.
    const honolulu = { name: 'Aloha Supply', line1: '1450 Ala Moana Blvd', city: 'Honolulu', state: 'HI', postcode: '96814', country: 'US' };
    const late = buildUpsPickupRequest({ ...input, address: honolulu, window: { start: '2026-07-14T01:00:00.000Z', end: '2026-07-14T03:00:00.000Z' } }).PickupCreationRequest;
    expect(late.PickupDateInfo).toEqual({ ReadyTime: '1500', CloseTime: '1700', PickupDate: '20260713' });
    // London in summer is UTC+1, and its weight is in kilograms.
    const london = { name: 'Tower Books', line1: '1 Tower Bridge Rd', city: 'London', postcode: 'SE1 2UP', country: 'GB' };
    const gb = buildUpsPickupRequest({ ...input, totalWeightG: 12_345, address: london, window: { start: '2026-07-13T08:00:00.000Z', end: '2026-07-13T16:00:00.000Z' } }).PickupCreationRequest;
    expect(gb.PickupDateInfo).toEqual({ ReadyTime: '0900', CloseTime: '1700', PickupDate: '20260713' });
    expect(gb.TotalWeight).toEqual({ Weight: '0012.4', UnitOfMeasurement: 'KGS' });
    // A window across the location's midnight, and a weight beyond 9999.9, are refused, not cut.
    expect(upsPickupProblems({ address: newYork, phone: '2125551234', window: { start: '2027-01-12T22:00:00.000Z', end: '2027-01-13T06:00:00.000Z' } })).toEqual([
      'window must start and end on the same local day (America/New_York) for a UPS pickup',
    ]);
    expect(upsPickupProblems({ address: newYork, phone: '2125551234', totalWeightG: 5_000_000 })).toEqual(['the parcels\' total weight must be at most 9999.9 LBS for a UPS pickup']);
  });

  it('refuses what UPS cannot take rather than cutting it', () => {
    expect(upsPickupProblems({ address: { ...SITE, name: 'A name much longer than UPS takes' }, phone: '4105551234' })).toEqual(['address.name must be at most 22 characters for a UPS pickup']);
    expect(upsPickupProblems({ address: SITE, phone: '' })).toEqual(['a phone number of at most 25 characters is needed for a UPS pickup']);
  });
});

describe('UPS pickups against the simulator', () => {
  it('books a rated pickup and cancels it by PRN', async () => {
    const adapter = upsAdapterOn(client());
    const booked = await adapter.schedulePickup!({ reference: 'pck_01j0000000000000000000000b', address: SITE, window: WINDOW, parcels: { count: 2, totalWeightG: 2000, serviceCodes: [], destinationCountries: [US_TO.country] }, phone: '4105551234' });
    expect(booked.confirmation).toMatch(/^\d{11}$/);
    expect(booked.fee).toEqual({ amount: 825, currency: 'USD' });
    expect(server.sim.pickups.get(booked.confirmation)?.cancelled).toBe(false);
    await adapter.cancelPickup!(booked.confirmation);
    expect(server.sim.pickups.get(booked.confirmation)?.cancelled).toBe(true);
    const again = await adapter.cancelPickup!(booked.confirmation).then(() => undefined, (e: unknown) => e);
    expect(again).toBeInstanceOf(CarrierError);
    expect(again).toMatchObject({ kind: 'definitive' });
    expect(server.sim.violations).toEqual([]);
  });

  it('a window that closes before it opens is refused by UPS, definitively', async () => {
    const adapter = upsAdapterOn(client());
    const error = await adapter
      .schedulePickup!({ reference: 'pck_01j0000000000000000000000c', address: SITE, window: { start: WINDOW.end, end: WINDOW.start }, parcels: { count: 1, totalWeightG: 0, serviceCodes: [] }, phone: '4105551234' })
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(CarrierError);
    expect(error).toMatchObject({ kind: 'definitive' });
    expect(server.sim.violations).toEqual([]);
  });
});
