import { PDFDocument } from 'pdf-lib';
import { afterEach, describe, expect, it } from 'vitest';
import { createUspsClient } from '../../../carriers/usps/client.js';
import type { Address, Customs } from '../../../domain/index.js';
import { startUspsSimulator } from '../../../tools/carrier-sim/usps/index.js';
import { FROM_US, PARCEL_US, TO_US } from './payloads.js';

const CREDENTIALS = { clientId: 'sim-client', clientSecret: 'sim-secret-do-not-log' };
const TO_CA: Address = { name: 'Jean Tremblay', line1: '100 Queen St W', city: 'Toronto', state: 'ON', postcode: 'M5H 2N2', country: 'CA', phone: '+1 (416) 555-0100' };
const item = (n: number) => ({ description: `Cotton T-shirt ${n}`, quantity: 1, value: '30.00', weight_g: 200, hs_tariff_number: '610910', origin_country: 'PT' });
const CUSTOMS: Customs = { contents_type: 'merchandise', contents_explanation: null, non_delivery: 'return', incoterm: 'DDU', signer: 'Sam Wilson', currency: 'USD', invoice_number: 'INV-1001', tax_ids: [], items: [item(1)] };

const closers: Array<() => Promise<void>> = [];
const problems: string[] = [];

async function harness() {
  const started = await startUspsSimulator({
    ...CREDENTIALS,
    // The simulator checks every request and every answer against the schemas generated from USPS's documents.
  });
  closers.push(async () => {
    problems.push(...started.simulator.answerProblems);
    await started.close();
  });
  const client = createUspsClient({ url: started.url, ...CREDENTIALS, crid: '12345678', mid: '123456', manifestMid: '123456', accountNumber: '1000000000' });
  return { client, sim: started.simulator };
}

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  expect(problems.splice(0)).toEqual([]);
});

async function pages(base64: string): Promise<string[]> {
  const doc = await PDFDocument.load(Buffer.from(base64, 'base64'));
  return doc.getPages().map((p) => `${p.getWidth()}x${p.getHeight()}`);
}

describe('USPS client against the simulator: abroad, returns, extra services', () => {
  it('prices Priority Mail International to Canada with insurance and buys it: the label PDF holds the CN23 page', async () => {
    const { client, sim } = await harness();
    const options = { declared_value: '60.00' };
    const [quote] = await client.rate(FROM_US, TO_CA, PARCEL_US, 'usps_priority_mail_international', { options });
    // 5 lb to price group 1: 45.95 + 4 × 3.50, and insurance of $60: 4.10.
    expect(quote).toMatchObject({ serviceCode: 'usps_priority_mail_international', net: 5995 + 410, currency: 'USD' });
    const bought = await client.buy({ shipmentId: 'shp_01j0000000abroad0000000001', serviceCode: 'usps_priority_mail_international', from: FROM_US, to: TO_CA, parcel: PARCEL_US, customs: CUSTOMS, options });
    expect(bought.trackingNumber).toMatch(/^CP\d{9}US$/);
    expect(bought.billed).toEqual({ amount: quote.net, currency: 'USD' });
    expect(bought.label.format).toBe('pdf');
    expect(await pages(bought.label.contentBase64)).toEqual(['288x432', '288x432']);
    expect(sim.requestProblems).toEqual([]);
    expect(await client.cancel(bought.trackingNumber)).toEqual({ kind: 'cancelled' });
  });

  it('runs a CN23 with many lines onto further pages', async () => {
    const { client } = await harness();
    const customs = { ...CUSTOMS, items: [1, 2, 3, 4, 5, 6, 7].map(item) };
    const bought = await client.buy({ shipmentId: 'shp_01j0000000abroad0000000002', serviceCode: 'usps_priority_mail_express_international', from: FROM_US, to: TO_CA, parcel: PARCEL_US, customs });
    expect(bought.trackingNumber).toMatch(/^EA\d{9}US$/);
    expect(await pages(bought.label.contentBase64)).toHaveLength(3);
    // Its ZPL, through international-labels' reprint: the label's format, then one per customs page.
    const zpl = await client.reprint(bought.trackingNumber, 'zpl');
    expect(zpl.label.format).toBe('zpl');
    const text = Buffer.from(zpl.label.contentBase64, 'base64').toString('utf8');
    expect(text.match(/\^XA/g)).toHaveLength(3);
    expect(text).toContain('CN23 (PS FORM 2976-A)  2/2');
    await expect(client.reprint(bought.trackingNumber, 'png')).rejects.toMatchObject({ kind: 'definitive' });
  });

  it('cancels an international label by the purchase key (its answer lost) through international-labels', async () => {
    const { client } = await harness();
    const shipmentId = 'shp_01j0000000abroad0000000005';
    const bought = await client.buy({ shipmentId, serviceCode: 'usps_priority_mail_international', from: FROM_US, to: TO_CA, parcel: PARCEL_US, customs: CUSTOMS });
    expect(await client.cancelByShipment(shipmentId)).toEqual({ kind: 'cancelled', trackingNumber: bought.trackingNumber });
    // A key neither API knows stays not found.
    await expect(client.cancelByShipment('shp_01j0000000abroad0000000099')).rejects.toMatchObject({ kind: 'definitive' });
  });

    it('leaves First-Class Package International out of a quote with insurance (USPS sells none there)', async () => {
    const { client } = await harness();
    const light = { ...PARCEL_US, weight_g: 900 };
    const all = await client.rate(FROM_US, TO_CA, light, 'all', {});
    expect(all.map((r) => r.serviceCode)).toContain('usps_first_class_package_international');
    const insured = await client.rate(FROM_US, TO_CA, light, 'all', { options: { declared_value: '60.00' } });
    expect(insured.map((r) => r.serviceCode)).toEqual(['usps_priority_mail_international', 'usps_priority_mail_express_international']);
  });

  it('prices signature and insurance domestically and bills what the quote said', async () => {
    const { client } = await harness();
    const options = { signature: 'required' as const, declared_value: '100.00' };
    const [plain] = await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail', {});
    const [extra] = await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail', { options });
    expect(extra.net - plain.net).toBe(440 + 285);
    const bought = await client.buy({ shipmentId: 'shp_01j0000000abroad0000000003', serviceCode: 'usps_priority_mail', from: FROM_US, to: TO_US, parcel: PARCEL_US, options });
    expect(bought.billed).toEqual({ amount: extra.net, currency: 'USD' });
  });

  it('prices and buys a return label under its return mail class', async () => {
    const { client, sim } = await harness();
    const [quote] = await client.rate(TO_US, FROM_US, PARCEL_US, 'usps_ground_advantage', { isReturn: true });
    const bought = await client.buy({ shipmentId: 'shp_01j0000000abroad0000000004', serviceCode: 'usps_ground_advantage', from: TO_US, to: FROM_US, parcel: PARCEL_US, isReturn: true });
    expect(bought.billed).toEqual({ amount: quote.net, currency: 'USD' });
    expect(sim.calls.return_label).toBe(1);
    expect(sim.labels()[0].mailClass).toBe('USPS_GROUND_ADVANTAGE_RETURN_SERVICE');
  });
});
