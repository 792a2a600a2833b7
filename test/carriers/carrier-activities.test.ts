// The carrier activities turn a carrier's refusal into a non-retryable Temporal failure that keeps
// what the carrier said: our reason (a scanned label is `label_already_scanned` to the customer) and
// the carrier's own error code (for operators reading the history).
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCarrierActivities } from '../../activities/carriers.js';
import { startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { CODE } from '../../domain/index.js';
import { addSimScan, httpAdapter, purchaseRequest } from './sim-helpers.js';

let sim: CarrierSimulator;
beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
});

describe('carrier activities', () => {
  it.each([
    ['acme', 'acme_ground', 'already_scanned'],
    ['swiftpost', 'swiftpost_standard', 'ALREADY_IN_NETWORK'],
  ])('carry the reason and the carrier code of a refused cancellation (%s)', async (carrier, service, carrierErrorCode) => {
    const adapter = httpAdapter(sim.url, carrier);
    const acts = createCarrierActivities({ adapter: () => adapter });
    const request = purchaseRequest(service);
    const { trackingNumber } = await acts.buyLabel({ carrier, livemode: true, request });
    await addSimScan(sim.url, trackingNumber, 'in_transit');
    const failure = await acts.cancelLabel({ carrier, livemode: true, reference: request.reference }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: CODE.carrier_error, nonRetryable: true });
    expect((failure as ApplicationFailure).details?.[0]).toMatchObject({ carrier, reason: 'already_scanned', carrierErrorCode });
  });
});
