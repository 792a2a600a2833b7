// The chaos run's clients (tools/chaos/clients.ts) judge outcomes as a careful integrator would: a
// check that misreads an outcome fails a run the service passed, or passes one it failed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClients } from '../../tools/chaos/clients.js';
import { seededRandom } from '../../tools/chaos/random.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** An API whose void answers 202 while the shipment still reads `purchased`, then its outcome. */
async function laggingApi(outcomes: Array<{ status: number; body: unknown }>) {
  const posts: string[] = [];
  server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET') return reply(200, { id: 'shp_1', status: 'purchased' });
    posts.push(String(req.headers['idempotency-key']));
    const next = outcomes.shift() ?? { status: 500, body: { code: 'internal_error' } };
    return reply(next.status, next.body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  return { url, posts };
}

describe('chaos clients', () => {
  it('follow a 202 void by sending it again under the same key, not by reading a shipment that may lag', async () => {
    const api = await laggingApi([
      { status: 202, body: { id: 'shp_1', status: 'voiding' } },
      { status: 202, body: { id: 'shp_1', status: 'voiding' } },
      { status: 200, body: { id: 'shp_1', status: 'voided' } },
    ]);
    const clients = createClients({ apiUrls: [api.url], started: Date.now(), random: seededRandom(1), giveUpMs: 10_000 });
    const out = await clients.voidLabel('svc_test_x', 'void-key-1', 'shp_1');
    expect(out.outcome).toBe('voided');
    expect(api.posts).toEqual(['void-key-1', 'void-key-1', 'void-key-1']);
  });

  it('take a refusal that follows a 202 as the void refused, with its code', async () => {
    const api = await laggingApi([
      { status: 202, body: { id: 'shp_1', status: 'voiding' } },
      { status: 409, body: { type: '/api/v1/problems/label_already_scanned', code: 'label_already_scanned', shipment_id: 'shp_1' } },
    ]);
    const clients = createClients({ apiUrls: [api.url], started: Date.now(), random: seededRandom(1), giveUpMs: 10_000 });
    const out = await clients.voidLabel('svc_test_x', 'void-key-2', 'shp_1');
    expect(out.outcome).toBe('refused');
    expect(out.problemCode).toBe('label_already_scanned');
  });
});
