import { afterEach, describe, expect, it } from 'vitest';
import { CarrierError } from '../../../carriers/types.js';
import { createUspsClient } from '../../../carriers/usps/client.js';
import { buildUspsPickupRequest, parseUspsPickupConfirmation } from '../../../carriers/usps/mapping-pickup.js';
import { buildUspsScanFormRequest, parseUspsScanFormResponse } from '../../../carriers/usps/mapping-scan-forms.js';
import { startUspsSimulator } from '../../../tools/carrier-sim/usps/index.js';
import { inspectPdf } from '../../labels/pdf-inspect.js';
import { FROM_US, PARCEL_US, TO_US } from './payloads.js';
import { LABELS_JSON, uspsAnswerProblems, uspsRequestProblems } from './schema-check.js';

const CREDENTIALS = { clientId: 'sim-client', clientSecret: 'sim-secret' };
let clock = Date.parse('2026-07-01T14:00:00Z');
const closers: Array<{ close(): Promise<void>; problems: () => string[] }> = [];

afterEach(async () => {
  for (const c of closers.splice(0)) {
    // Every request the client sent fits our schemas of the documents, and every answer too.
    expect(c.problems()).toEqual([]);
    await c.close();
  }
});

async function harness() {
  clock = Date.parse('2026-07-01T14:00:00Z');
  const started = await startUspsSimulator({
    ...CREDENTIALS,
    now: () => clock,
  });
  const client = createUspsClient({ url: started.url, ...CREDENTIALS, crid: '12345678', mid: '123456', manifestMid: '123456', accountNumber: '1000000000', now: () => clock, timeoutMs: 2_000 });
  closers.push({ close: started.close, problems: () => [...started.simulator.requestProblems, ...started.simulator.answerProblems] });
  return { client, sim: started.simulator };
}

describe('USPS SCAN form and pickup payloads, from the documents', () => {
  it('a SCAN form request names the labels, the sender as firm and its ZIP Code as the entry facility', () => {
    const body = buildUspsScanFormRequest(FROM_US, ['9205590006662200000001', '9205590006662200000002'], '2026-07-01');
    expect(body).toEqual({
      imageInfo: { imageType: 'PDF', labelType: '8.5X11LABEL' },
      mailingDate: '2026-07-01',
      overwriteMailingDate: true,
      entryFacilityZIPCode: '20024',
      destinationEntryFacilityType: 'NONE',
      shipment: { trackingNumbers: ['9205590006662200000001', '9205590006662200000002'] },
      fromAddress: { firm: 'Sam Wilson Supply Co', streetAddress: '45 L St SW', city: 'Washington', state: 'DC', ZIPCode: '20024' },
    });
    expect(uspsRequestProblems('scan-form', body)).toEqual([]);
  });

  it('reads the vendor answer of the document\'s example', () => {
    const example = {
      imageInfo: { imageType: 'SVG', labelType: '8.5X11LABEL' },
      mailingDate: '2026-02-06',
      overwriteMailingDate: false,
      entryFacilityZIPCode: '63116',
      destinationEntryFacilityType: 'NONE',
      shipment: { trackingNumbers: ['9405530900066611112089'] },
      fromAddress: { firstName: 'JOHN', lastName: 'DOE', firm: 'USPS', streetAddress: '2700 S JEFFERSON AVE', city: 'SAINT LOUIS', state: 'MO', ZIPCode: '63104' },
      manifestNumber: '9475038234567000031430',
      SCANFormImage: 'iVBORw0KGgo=',
      trackingNumbers: ['9405530900066611112089'],
    };
    expect(uspsAnswerProblems('scan-form', 200, example, LABELS_JSON)).toEqual([]);
    expect(parseUspsScanFormResponse(example)).toEqual({ manifestNumber: '9475038234567000031430', trackingNumbers: ['9405530900066611112089'], pdfBase64: 'iVBORw0KGgo=' });
    expect(parseUspsScanFormResponse({ ...example, manifestNumber: undefined })).toBeUndefined();
  });

  it('a pickup request counts packages by mail class, weighs them in pounds and splits the name', () => {
    const body = buildUspsPickupRequest({
      address: FROM_US,
      pickupDate: '2026-07-02',
      count: 3,
      totalWeightG: 6000,
      serviceCodes: ['usps_priority_mail', 'usps_priority_mail', 'usps_ground_advantage'],
      instructions: 'Loading dock B',
      contactEmail: 'ops@example.com',
    });
    expect(body).toEqual({
      pickupDate: '2026-07-02',
      pickupAddress: {
        firstName: 'Sam Wilson Supply',
        lastName: 'Co',
        firm: 'Sam Wilson Supply Co',
        address: { streetAddress: '45 L St SW', city: 'Washington', state: 'DC', ZIPCode: '20024' },
        contact: [{ email: 'ops@example.com' }],
      },
      packages: [
        { packageType: 'PRIORITY_MAIL', packageCount: 2 },
        { packageType: 'USPS_GROUND_ADVANTAGE', packageCount: 1 },
      ],
      estimatedWeight: 13.3,
      pickupLocation: { packageLocation: 'OTHER', specialInstructions: 'Loading dock B' },
    });
    expect(uspsRequestProblems('carrier-pickup', body)).toEqual([]);
    const bare = buildUspsPickupRequest({ address: { ...FROM_US, name: 'Cher' }, pickupDate: '2026-07-02', count: 1, totalWeightG: 0, serviceCodes: [], contactEmail: 'a@b.co' });
    expect(bare.pickupAddress).toMatchObject({ firstName: 'Cher', lastName: 'Cher' });
    expect(bare.packages).toEqual([{ packageType: 'OTHER', packageCount: 1 }]);
    expect(bare.pickupLocation).toEqual({ packageLocation: 'FRONT_DOOR' });
    expect(uspsRequestProblems('carrier-pickup', bare)).toEqual([]);
    // The document requires specialInstructions beside OTHER in its prose only: the simulator holds that rule.
  });

  it('reads a pickup confirmation', () => {
    // USPS answers with the request it booked.
    const booked = buildUspsPickupRequest({ address: { ...FROM_US, name: 'Cher' }, pickupDate: '2026-07-02', count: 1, totalWeightG: 0, serviceCodes: [], contactEmail: 'a@b.co' });
    const confirmation = { confirmationNumber: 'WTC123456789', pickupDate: '2026-07-02', carrierPickupRequest: booked };
    expect(uspsAnswerProblems('carrier-pickup', 200, confirmation)).toEqual([]);
    expect(parseUspsPickupConfirmation(confirmation)).toBe('WTC123456789');
    expect(parseUspsPickupConfirmation({})).toBeUndefined();
  });
});

describe('USPS client: SCAN forms and pickups against the simulator', () => {
  it('puts bought labels on a form and refuses a label already on one', async () => {
    const { client } = await harness();
    const labels = [];
    for (let i = 0; i < 3; i++) {
      labels.push(await client.buy({ shipmentId: `shp_01j00000000000000000000${i}aa`, serviceCode: 'usps_ground_advantage', from: FROM_US, to: TO_US, parcel: PARCEL_US }));
    }
    const numbers = labels.map((l) => l.trackingNumber);
    const form = await client.scanForm(FROM_US, numbers);
    expect(form.trackingNumbers).toEqual(numbers);
    expect(form.manifestNumber).toMatch(/^\d+$/);
    const pdf = await inspectPdf(new Uint8Array(Buffer.from(form.pdfBase64, 'base64')));
    for (const n of numbers) expect(pdf.text).toContain(n);
    const again = await client.scanForm(FROM_US, [numbers[0]]).then(() => undefined, (e: unknown) => e);
    expect(again).toBeInstanceOf(CarrierError);
    expect(again).toMatchObject({ kind: 'definitive' });
  });

  it('schedules a pickup and cancels it with the ETag USPS gives', async () => {
    const { client, sim } = await harness();
    const confirmation = await client.schedulePickup({ address: FROM_US, pickupDate: '2026-07-02', count: 2, totalWeightG: 3000, serviceCodes: [], contactEmail: 'ops@example.com' });
    expect(confirmation).toMatch(/^WTC\d{9}$/);
    await client.cancelPickup(confirmation);
    expect(sim.calls).toMatchObject({ pickup: 1, pickup_read: 1, pickup_cancel: 1 });
    const twice = await client.cancelPickup(confirmation).then(() => undefined, (e: unknown) => e);
    expect(twice).toBeInstanceOf(CarrierError);
  });

  it('a pickup in the past is USPS\'s refusal, a definitive error', async () => {
    const { client } = await harness();
    const error = await client.schedulePickup({ address: FROM_US, pickupDate: '2026-06-01', count: 1, totalWeightG: 0, serviceCodes: [], contactEmail: 'ops@example.com' }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(CarrierError);
    expect(error).toMatchObject({ kind: 'definitive' });
  });
});
