// A batch's merged label file after an item is voided, on the real stack (API, Temporal dev server,
// PostgreSQL, workers, carrier simulator), driven over HTTP: a refunded label is never printable
// from the file, through the bearer route, the signed link, or the stored file the portal serves.
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { batchLabelFile, schema } from '../../db/index.js';
import { download } from '../support/files.js';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

const { batches } = schema;
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const item = (reference: string, service = 'acme_ground') => ({
  service,
  from: address(),
  to: address({ name: `To ${reference}`, city: 'Leeds', postcode: 'LS1 4AP' }),
  parcel: parcel(),
  reference,
});

/** Every page's text, as a viewer reads it, and how many pages there are. */
async function readPdf(bytes: Buffer): Promise<{ pages: number; text: string }> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  try {
    const texts: string[] = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const content = await (await doc.getPage(i)).getTextContent();
      texts.push(content.items.map((x) => ('str' in x ? x.str : '')).join(' '));
    }
    return { pages: doc.numPages, text: texts.join('\n') };
  } finally {
    await doc.destroy();
  }
}

type Shipment = { id: string; status: string; tracking: { number: string } };

/** A completed batch of these items, and its shipments in item order. */
async function completedBatch(key: string, items: unknown[], labelFormat = 'pdf_6x4'): Promise<{ id: string; shipments: Shipment[] }> {
  const a = await call(stack, 'POST', '/api/v1/batches', { key, body: { shipments: items, label_format: labelFormat } });
  expect(a.status, a.text).toBe(202);
  await eventually(async () => (await call(stack, 'GET', `/api/v1/batches/${a.body.id}`, { key })).body.status === 'completed' || undefined, 120_000, 'the batch to complete');
  const list = await call(stack, 'GET', `/api/v1/batches/${a.body.id}/shipments?limit=100`, { key });
  expect(list.body.data.every((s: Shipment) => s.status === 'purchased')).toBe(true);
  return { id: a.body.id, shipments: list.body.data };
}

async function voided(key: string, shipmentId: string) {
  const v = await call(stack, 'POST', `/api/v1/shipments/${shipmentId}/void`, { key });
  expect(v.status, v.text).toBe(200);
  expect(v.body.status).toBe('voided');
}

const fileOf = (key: string, batchId: string) => download(`${stack.url}/api/v1/batches/${batchId}/label`, { authorization: `Bearer ${key}` });

async function signedFileOf(key: string, batchId: string) {
  const link = await call(stack, 'GET', `/api/v1/batches/${batchId}/label/signed`, { key });
  expect(link.status, link.text).toBe(200);
  return download(link.body.url);
}

describe("a batch's merged label file after a void", () => {
  it('leaves out the voided label: the stored file is made again by the workers, and the route and the signed link serve it', async () => {
    const acct = await createAccount(stack);
    const batch = await completedBatch(acct.testKey, [item('v-0'), item('v-1', 'swiftpost_standard'), item('v-2')]);
    const numbers = batch.shipments.map((s) => s.tracking.number);
    const before = await readPdf((await fileOf(acct.testKey, batch.id)).body);
    expect(before.pages).toBe(3);
    for (const n of numbers) expect(before.text).toContain(n);

    await voided(acct.testKey, batch.shipments[1].id);
    // The stored file (what the portal serves) is made again without waiting for a read of the API.
    const stored = await eventually(async () => batchLabelFile(stack.database.db, batch.id), 30_000, 'the stored file made again');
    expect((await readPdf(stored.content)).pages).toBe(2);

    const after = await fileOf(acct.testKey, batch.id);
    expect(after.status).toBe(200);
    expect(after.type).toBe('application/pdf');
    const pdf = await readPdf(after.body);
    expect(pdf.pages).toBe(2);
    expect(pdf.text).not.toContain(numbers[1]);
    expect(pdf.text).toContain(numbers[0]);
    expect(pdf.text).toContain(numbers[2]);
    expect(pdf.text.indexOf(numbers[0])).toBeLessThan(pdf.text.indexOf(numbers[2]));
    const signed = await signedFileOf(acct.testKey, batch.id);
    expect(signed.status).toBe(200);
    expect(signed.body.equals(after.body)).toBe(true);
  }, 180_000);

  it('a read that comes first has the file made again and waits for it; two voids at once both leave the file', async () => {
    const acct = await createAccount(stack);
    const batch = await completedBatch(acct.testKey, ['r-0', 'r-1', 'r-2', 'r-3'].map((r) => item(r)), 'zpl');
    const numbers = batch.shipments.map((s) => s.tracking.number);
    await Promise.all([voided(acct.testKey, batch.shipments[0].id), voided(acct.testKey, batch.shipments[2].id)]);
    // No waiting for the workers here: the read itself sees the stale file and has it made again.
    const file = await fileOf(acct.testKey, batch.id);
    expect(file.status, file.body.toString()).toBe(200);
    expect(file.type).toBe('application/zpl');
    const zpl = file.body.toString('utf8');
    expect(zpl.match(/\^XA/g)).toHaveLength(2);
    expect(zpl.match(/\^XZ/g)).toHaveLength(2);
    expect(zpl).not.toContain(numbers[0]);
    expect(zpl).not.toContain(numbers[2]);
    expect(zpl).toContain(numbers[1]);
    expect(zpl).toContain(numbers[3]);
    expect((await signedFileOf(acct.testKey, batch.id)).body.equals(file.body)).toBe(true);

    // A file whose items are not known (stored before they were recorded) is never taken as current:
    // the read has it made again from the labels there are now.
    await stack.database.db.update(batches).set({ labelShipmentIds: null }).where(eq(batches.id, batch.id));
    expect(await batchLabelFile(stack.database.db, batch.id)).toBeUndefined();
    const again = await fileOf(acct.testKey, batch.id);
    expect(again.status).toBe(200);
    expect(again.body.equals(file.body)).toBe(true);
    expect((await batchLabelFile(stack.database.db, batch.id))?.content.equals(file.body)).toBe(true);
  }, 180_000);

  it('answers 409 label_not_available, naming why, once every label of the batch is voided', async () => {
    const acct = await createAccount(stack);
    const batch = await completedBatch(acct.testKey, [item('a-0'), item('a-1')]);
    for (const s of batch.shipments) await voided(acct.testKey, s.id);
    const file = await call(stack, 'GET', `/api/v1/batches/${batch.id}/label`, { key: acct.testKey });
    expect(file.status).toBe(409);
    expect(file.body.code).toBe('label_not_available');
    expect(file.body.detail).toMatch(/voided/);
    const link = await call(stack, 'GET', `/api/v1/batches/${batch.id}/label/signed`, { key: acct.testKey });
    expect(link.status).toBe(409);
    expect(link.body.code).toBe('label_not_available');
    expect(await batchLabelFile(stack.database.db, batch.id)).toBeUndefined();
  }, 180_000);

  it('a live acme batch: the voided label is refunded and gone from the file', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const batch = await completedBatch(acct.liveKey, [item('l-0'), item('l-1')]);
    const numbers = batch.shipments.map((s) => s.tracking.number);
    await voided(acct.liveKey, batch.shipments[0].id);
    const file = await fileOf(acct.liveKey, batch.id);
    expect(file.status).toBe(200);
    const pdf = await readPdf(file.body);
    expect(pdf.pages).toBe(1);
    expect(pdf.text).not.toContain(numbers[0]);
    expect(pdf.text).toContain(numbers[1]);
  }, 180_000);
});
