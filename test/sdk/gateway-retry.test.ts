import { describe, expect, it } from 'vitest';
import { ParcelShipping, ParcelShippingConnectionError } from '../../sdk/src/index.js';

// A load balancer in front of the API (deploy/nginx) answers 502 with its own HTML page while no API
// instance answers, as during a deploy. The SDK promises to retry every 5xx but a carrier's refusal:
// this one too, and only then to give up (found by an audit: it threw at the first such page).
const gatewayPage = () =>
  new Response('<html><body><h1>502 Bad Gateway</h1></body></html>', { status: 502, headers: { 'content-type': 'text/html' } });
const balance = { object: 'balance', livemode: false, funding_source: 'wallet', currency: 'GBP', available: '1.00', pending: '0.00', credit_limit: null, low_balance_threshold: null };

function answering(...answers: (() => Response)[]) {
  const calls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    calls.push(`${init?.method} ${String(input)}`);
    return (answers.length > 1 ? answers.shift()! : answers[0])();
  };
  return { fetch, calls };
}

describe('the SDK behind a load balancer', () => {
  it("retries a gateway's 502 page, which is not JSON, like any 5xx", async () => {
    const api = answering(gatewayPage, gatewayPage, () => Response.json(balance));
    const ps = new ParcelShipping({ apiKey: 'svc_test_x', baseUrl: 'http://api.invalid', fetch: api.fetch, maxRetries: 3 });
    expect(await ps.balance.retrieve()).toEqual(balance);
    expect(api.calls).toHaveLength(3);
  });

  it('gives up after its retries with a connection error', async () => {
    const api = answering(gatewayPage);
    const ps = new ParcelShipping({ apiKey: 'svc_test_x', baseUrl: 'http://api.invalid', fetch: api.fetch, maxRetries: 1 });
    await expect(ps.balance.retrieve()).rejects.toBeInstanceOf(ParcelShippingConnectionError);
    expect(api.calls).toHaveLength(2);
  });

  it('still sends a sandbox scan once: its route takes no key, so a 5xx is not retried', async () => {
    const api = answering(gatewayPage);
    const ps = new ParcelShipping({ apiKey: 'svc_test_x', baseUrl: 'http://api.invalid', fetch: api.fetch, maxRetries: 3 });
    await expect(ps.sandbox.scan('shp_x', { status: 'in_transit' })).rejects.toBeInstanceOf(ParcelShippingConnectionError);
    expect(api.calls).toHaveLength(1);
  });

  it('takes a 2xx that is not JSON as not the API, at once', async () => {
    const api = answering(() => new Response('<html>captive portal</html>', { status: 200 }));
    const ps = new ParcelShipping({ apiKey: 'svc_test_x', baseUrl: 'http://api.invalid', fetch: api.fetch, maxRetries: 3 });
    await expect(ps.balance.retrieve()).rejects.toBeInstanceOf(ParcelShippingConnectionError);
    expect(api.calls).toHaveLength(1);
  });
});
