import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpsClient } from '../../../carriers/ups/client.js';
import { CarrierError } from '../../../carriers/types.js';
import { normalizeCustoms, type Address } from '../../../domain/index.js';
import { startUpsSimulator } from '../../../tools/carrier-sim/ups/index.js';
import { ACCOUNT, GB_FROM, PARCEL, US_FROM, US_TO } from './payloads.js';


const FROM: Address = { ...GB_FROM, name: 'Ann Shipper', company: 'Tower Books Ltd', phone: '+44 20 7946 0958' };
const TO: Address = { name: 'Bob Buyer', line1: '350 5th Ave', city: 'New York', state: 'NY', postcode: '10118', country: 'US', phone: '+1 212 555 0100' };
const CUSTOMS = normalizeCustoms(
  { contents_type: 'merchandise', signer: 'Ann Shipper', currency: 'USD', items: [{ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, origin_country: 'PT' }] },
  'GBP',
);

let server: Awaited<ReturnType<typeof startUpsSimulator>>;
let serial = 0;
const reference = () => `shp_01jz8q3v5k9m2n4p6r8sab${String(++serial).padStart(4, '0')}`;
const ups = () => createUpsClient({ url: server.url, clientId: 'sim-client-id', clientSecret: 'sim-client-secret', accountNumber: ACCOUNT });

beforeAll(async () => {
  server = await startUpsSimulator({
    accountNumber: ACCOUNT,
    // The simulator checks every request and answer against the schemas generated from UPS's documents.
  });
});
afterAll(() => server.close());

describe('the UPS simulator abroad, for returns and with options', () => {
  it('rates GB to US with the international services only, and buys ups_express with its invoice as a PDF Form', async () => {
    const rated = await ups().rate({ from: FROM, to: TO, parcel: PARCEL, service: 'all' });
    expect(rated.map((r) => r.serviceCode).sort()).toEqual(['ups_expedited', 'ups_express', 'ups_saver', 'ups_standard']);
    const bought = await ups().buy({ reference: reference(), serviceCode: 'ups_express', from: FROM, to: TO, parcel: PARCEL, labelFormat: 'gif', customs: CUSTOMS, at: '2026-07-11T12:00:00Z' });
    const invoice = bought.documents?.[0];
    expect(invoice).toMatchObject({ type: 'commercial_invoice', format: 'pdf' });
    const pdf = await PDFDocument.load(Buffer.from(invoice!.contentBase64, 'base64'));
    expect(pdf.getPageCount()).toBe(1);
    expect(server.sim.violations).toEqual([]);
  });

  it('refuses an international shipment without a phone, as its document says', async () => {
    const error = await ups()
      .buy({ reference: reference(), serviceCode: 'ups_express', from: { ...FROM, phone: undefined }, to: TO, parcel: PARCEL, labelFormat: 'gif', customs: CUSTOMS })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CarrierError);
    expect((error as CarrierError).message).toMatch(/phone number is required/);
  });

  it('prices the residential flag and the options, deterministically, and leaves out services without Saturday delivery', async () => {
    const business = { ...US_TO, company: 'Happy Dog Inc' };
    const plain = await ups().rate({ from: US_FROM, to: business, parcel: PARCEL, service: 'ups_next_day_air' });
    const home = await ups().rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'ups_next_day_air' });
    const options = { signature: 'adult' as const, declared_value: '250.00', saturday_delivery: true };
    const dressed = await ups().rate({ from: US_FROM, to: business, parcel: PARCEL, service: 'ups_next_day_air', options, currency: 'USD' });
    // Negotiated at 90 % of published: residential 4.50, adult signature 7.00, Saturday 16.00, 3 × 1.20 declared.
    expect(home[0]!.net - plain[0]!.net).toBe(Math.round((plain[0]!.net / 0.9 + 450) * 0.9) - plain[0]!.net);
    expect(dressed[0]!.net).toBe(Math.round(((plain[0]!.net / 0.9) + 700 + 1_600 + 360) * 0.9));
    const shop = await ups().rate({ from: US_FROM, to: business, parcel: PARCEL, service: 'all', options: { saturday_delivery: true } });
    expect(shop.map((r) => r.serviceCode).sort()).toEqual(['ups_2nd_day_air', 'ups_next_day_air']);
  });

  it('buys a return label with ReturnService 9, leaving from the customer', async () => {
    const bought = await ups().buy({ reference: reference(), serviceCode: 'ups_ground', from: US_TO, to: US_FROM, parcel: PARCEL, labelFormat: 'zpl', isReturn: true });
    expect(bought.trackingNumber).toMatch(/^1Z/);
    expect(bought.documents).toBeUndefined();
    expect(server.sim.violations).toEqual([]);
  });
});
