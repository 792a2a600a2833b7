import { randomBytes } from 'node:crypto';
import type { ApiClient } from './http.js';
import { describeAnswer } from './http.js';
import { buyRequest, quoteRequest } from './fixtures.js';
import { closedLoop, type Limits, type LoadResult } from './load.js';
import type { LoadScenarioName } from './options.js';
import { buyShipment, cheapestService, SetupError } from './setup.js';

export type ScenarioOutcome =
  | { name: LoadScenarioName; status: 'ran'; endpoint: string; load: LoadResult; note?: string }
  | { name: LoadScenarioName; status: 'skipped' | 'failed'; endpoint: string; reason: string };

export interface ScenarioContext {
  client: ApiClient;
  key: string;
  limits: Limits;
  /** Progress lines for the operator (stderr). */
  log: (line: string) => void;
}

type Scenario = (ctx: ScenarioContext) => Promise<ScenarioOutcome>;

const quotes: Scenario = async ({ client, key, limits }) => {
  const body = quoteRequest();
  const load = await closedLoop(limits, async () => (await client.send('POST', '/api/v1/quotes', { key, body })).status);
  return { name: 'quotes', status: 'ran', endpoint: 'POST /api/v1/quotes', load };
};

const purchases: Scenario = async ({ client, key, limits, log }) => {
  const service = await cheapestService(client, key);
  log(`purchases: buying ${service.code}, the cheapest quoted service`);
  // Unique per run and request: a replay would measure the idempotency cache, not a purchase.
  const run = randomBytes(6).toString('hex');
  const load = await closedLoop(limits, async (i) => {
    const answer = await client.send('POST', '/api/v1/shipments', {
      key,
      body: buyRequest(service.code, `bench-${run}-${i}`),
      headers: { 'idempotency-key': `bench-${run}-${i}` },
    });
    return answer.status;
  });
  return {
    name: 'purchases',
    status: 'ran',
    endpoint: 'POST /api/v1/shipments',
    load,
    note: `service ${service.code}; a 202 (purchase still pending) counts as ok; see statuses`,
  };
};

const LABEL_ENDPOINT = 'GET /api/v1/shipments/{id}/label?format=pdf_6x4';

const labels: Scenario = async ({ client, key, limits, log }) => {
  const service = await cheapestService(client, key);
  const shipment = await buyShipment(client, key, service.code, `bench-label-${randomBytes(6).toString('hex')}`);
  log(`labels: fetching the label of ${shipment.id}`);
  const path = `/api/v1/shipments/${encodeURIComponent(shipment.id)}/label?format=pdf_6x4`;

  const first = await client.send('GET', path, { key, parse: true });
  if (first.status === 404) {
    // A 404 for a shipment we just bought means the route itself is missing, whatever its wording.
    const detail = (first.json as { detail?: unknown } | undefined)?.detail;
    const routeMissing =
      (typeof detail === 'string' && detail.startsWith('No route')) ||
      (await client.send('GET', `/api/v1/shipments/${encodeURIComponent(shipment.id)}`, { key })).status === 200;
    if (routeMissing) {
      return {
        name: 'labels',
        status: 'skipped',
        endpoint: LABEL_ENDPOINT,
        reason: 'the label endpoint is not there (404 for the route)',
      };
    }
  }
  if (first.status !== 200) throw new SetupError(`the first label request answered ${describeAnswer(first)}`);

  const load = await closedLoop(limits, async () => (await client.send('GET', path, { key })).status);
  return { name: 'labels', status: 'ran', endpoint: LABEL_ENDPOINT, load, note: `shipment ${shipment.id}` };
};

const SCENARIOS: Record<LoadScenarioName, { endpoint: string; run: Scenario }> = {
  quotes: { endpoint: 'POST /api/v1/quotes', run: quotes },
  purchases: { endpoint: 'POST /api/v1/shipments', run: purchases },
  labels: { endpoint: LABEL_ENDPOINT, run: labels },
};

/** A scenario that did not start (the run was interrupted before it). */
export function notStarted(name: LoadScenarioName, reason: string): ScenarioOutcome {
  return { name, status: 'skipped', endpoint: SCENARIOS[name].endpoint, reason };
}

/** Runs one scenario; a failed setup is reported as that scenario's outcome, never thrown. */
export async function runScenario(name: LoadScenarioName, ctx: ScenarioContext): Promise<ScenarioOutcome> {
  const { endpoint, run } = SCENARIOS[name];
  try {
    return await run(ctx);
  } catch (err) {
    const reason = err instanceof SetupError ? err.message : `setup request failed: ${(err as Error).message}`;
    return { name, status: 'failed', endpoint, reason };
  }
}
