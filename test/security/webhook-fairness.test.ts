// Item 5 of issue 13 (fairness): one account's slow, failing endpoints cannot take every webhook
// delivery slot. Account A's receiver holds every request open (each attempt holds a slot until the
// 10 s limit); account B's delivery still arrives while A's first attempts are held open, rather
// than after they time out. The real webhook worker, with few slots so that the effect is certain.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/index.js';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

let stack: TestStack;
const held: ServerResponse[] = [];
let slow: Receiver;
let fast: Receiver;

beforeAll(async () => {
  stack = await startTestStack(
    {
      webhookAllowPrivate: true,
      webhookAccountConcurrency: 1,
      worker: { ...parseConfig({}).worker, shutdownGraceMs: 0, maxConcurrentActivities: 3 },
    },
    { groups: ['shipments', 'webhooks'] },
  );
  slow = await startReceiver(() => ({ hold: (res) => held.push(res) }));
  fast = await startReceiver(() => 200);
}, 180_000);

afterAll(async () => {
  for (const res of held) res.destroy();
  await slow?.close();
  await fast?.close();
  await stack?.stop();
});

const buy = async (key: string) => {
  const res = await call(stack, 'POST', '/api/v1/shipments', {
    key,
    body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
};

describe('webhook deliveries between accounts', () => {
  it('delivers another account’s event while one account’s endpoints hold their requests open', async () => {
    const noisy = await createAccount(stack);
    for (let i = 0; i < 4; i++) {
      const r = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: noisy.testKey, body: { url: `${slow.url}?n=${i}` } });
      expect(r.status, r.text).toBe(201);
    }
    const quiet = await createAccount(stack);
    expect((await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: quiet.testKey, body: { url: fast.url } })).status).toBe(201);

    await buy(noisy.testKey);
    await eventually(async () => (slow.received.length >= 1 ? true : undefined), 30_000, 'the noisy account’s first attempt');
    const mine = await buy(quiet.testKey);
    await eventually(
      async () => fast.received.find((r) => r.body?.data?.object?.id === mine.id),
      30_000,
      'the quiet account’s delivery',
    );
    // Arrived while every request the noisy account's endpoints received is still held open: it
    // did not wait for their attempts to time out and free the slots.
    expect(held.length).toBeGreaterThanOrEqual(1);
    expect(held.filter((res) => res.destroyed || res.writableEnded)).toHaveLength(0);
  });
});
