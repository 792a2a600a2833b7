// One delivery attempt, the activity alone against a real PostgreSQL and a receiver on loopback:
// headers, what counts as acknowledged, the 10 s limit, and the address check made again at
// delivery time (a DNS change cannot point an endpoint inside).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createWebhookActivities, type ResolveHost } from '../../activities/webhooks.js';
import {
  deleteWebhookEndpoint,
  encryptWebhookSecret,
  generateWebhookSecret,
  insertEvent,
  insertWebhookEndpoint,
  listWebhookDeliveries,
  openDatabase,
  type Database,
} from '../../db/index.js';
import { makeId } from '../../domain/index.js';
import { type Config, parseConfig } from '../../config/index.js';
import { specVerify, startReceiver, type Answer, type Receiver } from './receiver.js';

const id = (prefix: 'acc' | 'evt' | 'we') => makeId(prefix, Date.now(), randomBytes(16));
const baseConfig = parseConfig({});

let database: Database;
let receiver: Receiver;
let answer: (n: number) => Answer = () => 200;
beforeAll(async () => {
  database = openDatabase(inject('databaseUrl'), { max: 4 });
  receiver = await startReceiver((_r, n) => answer(n));
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
});

/** An account's endpoint at `url` and one stored event, straight in the database. */
async function setup(url: string, config: Config = baseConfig) {
  const accountId = id('acc');
  const endpointId = id('we');
  const eventId = id('evt');
  const secret = generateWebhookSecret();
  await insertWebhookEndpoint(database.db, {
    id: endpointId,
    accountId,
    livemode: false,
    url,
    events: null,
    secretCiphertext: encryptWebhookSecret(secret, config.webhookSecretKey, endpointId),
  });
  await insertEvent(database.db, {
    id: eventId,
    accountId,
    livemode: false,
    type: 'shipment.purchased',
    shipmentId: null,
    data: { object: { id: 'shp_x' } },
    createdAt: new Date(),
  });
  return { accountId, endpointId, eventId, secret };
}

const activitiesWith = (config: Partial<Config>, lookup?: ResolveHost) =>
  createWebhookActivities({ db: database.db, config: { ...baseConfig, ...config }, lookup });

describe('one delivery attempt', () => {
  it('POSTs the body with the contract headers and records an acknowledged attempt', async () => {
    answer = () => 204;
    const acts = activitiesWith({ webhookAllowPrivate: true });
    const s = await setup(receiver.url);
    const body = await acts.loadWebhookEvent({ eventId: s.eventId, accountId: s.accountId, livemode: false });
    const outcome = await acts.deliverWebhook({ eventId: s.eventId, endpointId: s.endpointId, attempt: 3, body, final: false });
    expect(outcome).toMatchObject({ outcome: 'succeeded', statusCode: 204 });

    const [r] = receiver.of(s.eventId);
    expect(r.raw.toString('utf8')).toBe(body);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-svc-event-id']).toBe(s.eventId);
    expect(r.headers['x-svc-delivery-attempt']).toBe('3');
    expect(specVerify(r.raw, r.headers['x-svc-signature'] as string, s.secret, Date.now() / 1000)).toBe(true);
    expect(r.body).toMatchObject({ id: s.eventId, object: 'event', type: 'shipment.purchased', livemode: false, data: { object: { id: 'shp_x' } } });

    const { rows } = await listWebhookDeliveries(database.db, { endpointId: s.endpointId, limit: 5 });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempt: 3, outcome: 'succeeded', statusCode: 204, error: null, final: false });
    expect(rows[0].id).toMatch(/^whd_/);
  });

  it('counts a redirect or an error status as a failure, follows no redirect, and marks the last attempt final', async () => {
    answer = () => 302;
    const acts = activitiesWith({ webhookAllowPrivate: true });
    const s = await setup(receiver.url);
    const outcome = await acts.deliverWebhook({ eventId: s.eventId, endpointId: s.endpointId, attempt: 6, body: '{}', final: true });
    expect(outcome).toEqual({ outcome: 'failed', statusCode: 302, error: 'HTTP 302', latencyMs: expect.any(Number) });
    expect(receiver.of(s.eventId)).toHaveLength(1);
    const { rows } = await listWebhookDeliveries(database.db, { endpointId: s.endpointId, limit: 5 });
    expect(rows[0]).toMatchObject({ attempt: 6, outcome: 'failed', statusCode: 302, final: true });
  });

  it('records a repeated attempt (a lost worker) once, with the later outcome', async () => {
    const acts = activitiesWith({ webhookAllowPrivate: true });
    const s = await setup(receiver.url);
    answer = () => 500;
    await acts.deliverWebhook({ eventId: s.eventId, endpointId: s.endpointId, attempt: 1, body: '{}', final: false });
    answer = () => 200;
    await acts.deliverWebhook({ eventId: s.eventId, endpointId: s.endpointId, attempt: 1, body: '{}', final: false });
    const { rows } = await listWebhookDeliveries(database.db, { endpointId: s.endpointId, limit: 5 });
    expect(rows.map((r) => [r.attempt, r.outcome, r.statusCode])).toEqual([[1, 'succeeded', 200]]);
  });

  it('does not take a 2xx that comes after 10 s', async () => {
    answer = () => ({ hold: (res) => setTimeout(() => res.writeHead(200).end(), 11_000).unref() });
    const acts = activitiesWith({ webhookAllowPrivate: true });
    const s = await setup(receiver.url);
    const started = Date.now();
    const outcome = await acts.deliverWebhook({ eventId: s.eventId, endpointId: s.endpointId, attempt: 1, body: '{}', final: false });
    expect(outcome).toMatchObject({ outcome: 'failed', statusCode: null, error: 'no answer within 10 s' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    expect(Date.now() - started).toBeLessThan(12_000);
  });

  it('refuses at delivery a name that now resolves to a private or loopback address, before connecting', async () => {
    answer = () => 200;
    const port = new URL(receiver.url).port;
    // The endpoint was registered while its name pointed outside; DNS now says loopback.
    for (const address of ['127.0.0.1', '::ffff:127.0.0.1', '10.0.0.7']) {
      const lookup: ResolveHost = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
      const acts = activitiesWith({ webhookAllowPrivate: false }, lookup);
      const s = await setup(`https://hooks.example.test:${port}/hooks`);
      const outcome = await acts.deliverWebhook({ eventId: s.eventId, endpointId: s.endpointId, attempt: 1, body: '{}', final: false });
      expect(outcome, address).toMatchObject({ outcome: 'failed', statusCode: null, error: 'the URL resolves to a non-public address' });
      expect(receiver.of(s.eventId)).toHaveLength(0);
    }
    // One private address among public ones is refused too.
    const mixed: ResolveHost = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const s = await setup(`https://hooks.example.test:${port}/hooks`);
    const outcome = await activitiesWith({ webhookAllowPrivate: false }, mixed).deliverWebhook({
      eventId: s.eventId,
      endpointId: s.endpointId,
      attempt: 1,
      body: '{}',
      final: false,
    });
    expect(outcome).toMatchObject({ outcome: 'failed', error: 'the URL resolves to a non-public address' });
  });

  it('refuses at delivery a plain-http or loopback URL once private addresses are no longer allowed', async () => {
    answer = () => 200;
    const acts = activitiesWith({ webhookAllowPrivate: false });
    const plain = await setup(receiver.url);
    expect(await acts.deliverWebhook({ eventId: plain.eventId, endpointId: plain.endpointId, attempt: 1, body: '{}', final: false })).toMatchObject({
      outcome: 'failed',
      error: 'the URL must use https',
    });
    const loopback = await setup(receiver.url.replace('http:', 'https:'));
    expect(
      await acts.deliverWebhook({ eventId: loopback.eventId, endpointId: loopback.endpointId, attempt: 1, body: '{}', final: false }),
    ).toMatchObject({ outcome: 'failed', error: 'the URL must resolve to a public address' });
    expect(receiver.of(plain.eventId)).toHaveLength(0);
    expect(receiver.of(loopback.eventId)).toHaveLength(0);
  });

  it('sends nothing to a deleted endpoint, and records nothing', async () => {
    const acts = activitiesWith({ webhookAllowPrivate: true });
    const s = await setup(receiver.url);
    await deleteWebhookEndpoint(database.db, { accountId: s.accountId, livemode: false }, s.endpointId, new Date());
    expect(await acts.deliverWebhook({ eventId: s.eventId, endpointId: s.endpointId, attempt: 1, body: '{}', final: false })).toEqual({
      outcome: 'endpoint_deleted',
    });
    expect(receiver.of(s.eventId)).toHaveLength(0);
    expect((await listWebhookDeliveries(database.db, { endpointId: s.endpointId, limit: 5 })).rows).toHaveLength(0);
  });

  it('fails the attempt without sending when the secret cannot be opened (a changed key), saying nothing internal', async () => {
    const s = await setup(receiver.url);
    const acts = activitiesWith({ webhookAllowPrivate: true, webhookSecretKey: 'a-different-key' });
    const outcome = await acts.deliverWebhook({ eventId: s.eventId, endpointId: s.endpointId, attempt: 1, body: '{}', final: false });
    expect(outcome).toMatchObject({ outcome: 'failed', error: 'internal error: the delivery could not be signed' });
    expect(receiver.of(s.eventId)).toHaveLength(0);
  });

  it('reports a refused connection as a failed attempt', async () => {
    const acts = activitiesWith({ webhookAllowPrivate: true });
    const s = await setup('http://127.0.0.1:1/hooks');
    const outcome = await acts.deliverWebhook({ eventId: s.eventId, endpointId: s.endpointId, attempt: 1, body: '{}', final: false });
    expect(outcome).toMatchObject({ outcome: 'failed', statusCode: null, error: 'connection failed (ECONNREFUSED)' });
  });
});
