import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

// Contract: 408 request_timeout when the request body did not arrive in time. A body that stopped
// coming held its connection open for ever (Fastify sets no limit), so the 408 never came.
let stack: TestStack;
let acct: TestAccount;
beforeAll(async () => {
  stack = await startTestStack({ requestTimeoutMs: 1_000 }, { workers: false });
  acct = await createAccount(stack);
});
afterAll(async () => {
  await stack?.stop();
});

/** Sends `head` then `body` on a raw connection and returns everything the server sends until it closes. */
function rawExchange(head: string, body: string, giveUpMs: number): Promise<{ text: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(head + body));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), closedAfterMs: Date.now() - started }));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${giveUpMs} ms`));
    }, giveUpMs).unref();
  });
}

describe('a request that does not arrive in time', () => {
  it('is answered 408 request_timeout as problem+json when its body stops coming', async () => {
    const head =
      `POST /api/v1/quotes HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${acct.testKey}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    const { text, closedAfterMs } = await rawExchange(head, '{"from":', 15_000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    expect(text).toMatch(/\r\nrequest-id: req_/i);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ status: 408, code: 'request_timeout' });
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
  });

  it('is answered 408 too when its headers never end', async () => {
    const { text } = await rawExchange('GET /api/v1/account/balance HTTP/1.1\r\nHost: localhost\r\n', 'X-Slow: 1\r\n', 15_000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });
});
