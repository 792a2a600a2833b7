// Item 8 of issue 13: payloads are encrypted (AES-256-GCM, key id in the metadata) on every client
// and worker, so the raw history on the server holds no recipient name; the codec endpoint decodes
// them for the Temporal UI, which the dev server is pointed at with --ui-codec-endpoint.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EncryptionCodec, ENCODING, KEY_ID_METADATA, keyIdOf, startCodecServer } from '../../codec/index.js';
import { parseConfig } from '../../config/index.js';
import { shipmentWorkflowId } from '../../contract/index.js';
import { startDevServer } from '../../tools/temporal/dev-server.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

const key = () => randomBytes(32).toString('base64');
const text = (b?: Uint8Array | null) => Buffer.from(b ?? new Uint8Array()).toString('utf8');

/** Every byte string in a history, as text: whatever a reader of the server's database would see. */
function allBytes(value: unknown, out: string[] = []): string[] {
  if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('latin1'));
  else if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => allBytes(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => allBytes(v, out));
  return out;
}

describe('the payload codec', () => {
  it('encrypts with AES-256-GCM, names its key, and decrypts with a retired key during rotation', async () => {
    const oldKey = key();
    const newKey = key();
    const payload = defaultPayloadConverter.toPayload({ name: 'Ada Lovelace' });
    const [sealed] = await new EncryptionCodec(oldKey).encode([payload]);
    expect(text(sealed.metadata?.encoding)).toBe(ENCODING);
    expect(text(sealed.metadata?.[KEY_ID_METADATA])).toBe(keyIdOf(Buffer.from(oldKey, 'base64')));
    expect(text(sealed.data)).not.toContain('Ada');
    // Rotation: the new key encrypts, the old one still opens what it sealed.
    const rotated = new EncryptionCodec(newKey, [oldKey]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([sealed]))[0])).toEqual({ name: 'Ada Lovelace' });
    expect(text((await rotated.encode([payload]))[0].metadata?.[KEY_ID_METADATA])).toBe(keyIdOf(Buffer.from(newKey, 'base64')));
    await expect(new EncryptionCodec(newKey).decode([sealed])).rejects.toThrow(/not configured/);
    // Tampering is detected (GCM's tag).
    const tampered = { ...sealed, data: Buffer.from(sealed.data!).map((b, i) => (i === 20 ? b ^ 1 : b)) };
    await expect(new EncryptionCodec(oldKey).decode([tampered])).rejects.toThrow();
    // Payloads from before encryption still read.
    expect(await new EncryptionCodec(newKey).decode([payload])).toEqual([payload]);
  });
});

describe('shipments in Temporal', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ payloadEncryptionKey: key() });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps names and addresses out of the raw history, and the codec endpoint decodes them', async () => {
    const acct = await createAccount(stack, { topUp: '30.00' });
    const recipient = `Zelda ${randomUUID()}`;
    const street = `${randomUUID()} Secret Lane`;
    const a = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address({ name: recipient, line1: street }), parcel: parcel() },
    });
    expect(a.status, a.text).toBe(201);
    const handle = stack.temporal.workflow.getHandle(shipmentWorkflowId(a.body.id));
    const history = await handle.fetchHistory();
    const raw = allBytes(history).join('\n');
    expect(raw).not.toContain(recipient);
    expect(raw).not.toContain(street);
    expect(raw).not.toContain('Zelda');

    // The UI's codec endpoint turns the start event's input back into the shipment.
    const codec = await startCodecServer({
      codec: new EncryptionCodec(stack.config.payloadEncryptionKey),
      allowedOrigins: ['http://localhost:8233'],
    });
    try {
      const input = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads!;
      expect(text(input[0].metadata?.encoding)).toBe(ENCODING);
      const body = {
        payloads: input.map((p) => ({
          metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
          data: Buffer.from(p.data!).toString('base64'),
        })),
      };
      const res = await request(`${codec.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://localhost:8233', 'x-namespace': 'default' },
        body: JSON.stringify(body),
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('http://localhost:8233');
      const decoded = (await res.body.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
      const shipment = JSON.parse(Buffer.from(decoded.payloads[0].data, 'base64').toString('utf8'));
      expect(shipment.to).toMatchObject({ name: recipient, line1: street });
      // A page on another origin cannot use it to decrypt.
      const foreign = await request(`${codec.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
        body: JSON.stringify(body),
      });
      expect(foreign.statusCode).toBe(403);
      await foreign.body.dump();
      // The Temporal CLI (--codec-endpoint) sends `{}` for no payloads, as protobuf JSON leaves an
      // empty list out: nothing to decode, not a 400 that fails `temporal workflow metadata`.
      for (const empty of [{}, { payloads: [] }]) {
        const none = await request(`${codec.url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(empty) });
        expect(none.statusCode).toBe(200);
        expect(await none.body.json()).toEqual({ payloads: [] });
      }
      const wrong = await request(`${codec.url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ payloads: 'x' }) });
      expect(wrong.statusCode).toBe(400);
      await wrong.body.dump();
    } finally {
      await codec.close();
    }
  });
});

describe('the dev server', () => {
  it('points its UI at the codec endpoint', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'codec-dev-'));
    const codec = await startCodecServer({ codec: new EncryptionCodec(parseConfig({}).payloadEncryptionKey), allowedOrigins: [] });
    const server = await startDevServer({ dataDir, port: 0, searchAttributes: {}, log: () => undefined, extraArgs: ['--ui-codec-endpoint', codec.url] });
    try {
      const res = await request(`${server.uiUrl}/api/v1/settings`);
      const settings = (await res.body.json()) as { Codec?: { Endpoint?: string } };
      expect(settings.Codec?.Endpoint).toBe(codec.url);
    } finally {
      await server.stop();
      await codec.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
