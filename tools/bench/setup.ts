import { setTimeout as sleep } from 'node:timers/promises';
import { parseAmount } from '../../domain/index.js';
import { describeAnswer, type ApiClient } from './http.js';
import { buyRequest, quoteRequest } from './fixtures.js';

/** A setup call (not timed) that did not give what a scenario needs: the scenario is reported failed. */
export class SetupError extends Error {}

export interface CheapestService {
  code: string;
  carrier: string;
  /** Gross price in minor units. */
  gross: number;
  currency: string;
}

/** The first quote item: the contract orders quotes cheapest `price.gross` first. */
export async function cheapestService(client: ApiClient, key: string): Promise<CheapestService> {
  const answer = await client.send('POST', '/api/v1/quotes', { key, body: quoteRequest(), parse: true });
  if (answer.status !== 200) throw new SetupError(`quoting failed: ${describeAnswer(answer)}`);
  const first = (answer.json as { data?: Array<{ service?: { code?: string; carrier?: string }; price?: { gross?: string; currency?: string } }> })
    .data?.[0];
  const gross = first?.price?.gross ? parseAmount(first.price.gross) : null;
  if (!first?.service?.code || gross === null) throw new SetupError('quoting returned no service for the bench parcel');
  return { code: first.service.code, carrier: first.service.carrier ?? '', gross, currency: first.price?.currency ?? '' };
}

interface Shipment {
  id: string;
  status: string;
}

const PENDING_POLL_MS = 250;
const PENDING_LIMIT_MS = 90_000;

/** Buys one shipment and, when it answers 202, waits for the workflow to finish the purchase. */
export async function buyShipment(client: ApiClient, key: string, service: string, idempotencyKey: string): Promise<Shipment> {
  const answer = await client.send('POST', '/api/v1/shipments', {
    key,
    body: buyRequest(service, 'bench-setup'),
    headers: { 'idempotency-key': idempotencyKey },
    parse: true,
  });
  if (answer.status !== 201 && answer.status !== 202) throw new SetupError(`buying a shipment failed: ${describeAnswer(answer)}`);
  let shipment = answer.json as Shipment;
  const until = performance.now() + PENDING_LIMIT_MS;
  while (shipment.status === 'pending') {
    if (performance.now() > until) throw new SetupError(`shipment ${shipment.id} still pending after ${PENDING_LIMIT_MS / 1000} s`);
    await sleep(PENDING_POLL_MS);
    const read = await client.send('GET', `/api/v1/shipments/${encodeURIComponent(shipment.id)}`, { key, parse: true });
    if (read.status !== 200) throw new SetupError(`reading shipment ${shipment.id} failed: ${describeAnswer(read)}`);
    shipment = read.json as Shipment;
  }
  if (shipment.status === 'failed') throw new SetupError(`shipment ${shipment.id} failed to purchase`);
  return shipment;
}
