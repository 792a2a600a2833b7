import { CarrierError, type CarrierAdapter, type Scan } from '../carriers/index.js';
import { createCoalescer } from './coalesce.js';

/**
 * The carrier calls of tracking: polls and push subscriptions. Where the carrier takes many numbers
 * in one call (`capabilities.trackingBatch`, `trackingSubscription.perCall`), those this worker makes
 * within `windowMs` of each other go together; elsewhere each is a call of its own. With `admit`,
 * each call to the carrier (one for a whole batch) first waits for its place in the carrier's rate.
 */
export function createTrackingCalls(windowMs: number, admit?: (t: { carrier: string; livemode: boolean }) => Promise<void>) {
  const polls = createCoalescer<Scan[]>(windowMs);
  const subscriptions = createCoalescer<boolean>(windowMs);
  const keyOf = (t: { carrier: string; livemode: boolean }) => `${t.carrier}:${t.livemode ? 'live' : 'test'}`;
  const admitted = async <T>(t: { carrier: string; livemode: boolean }, send: () => Promise<T>): Promise<T> => {
    await admit?.(t);
    return send();
  };

  return {
    scans(t: { carrier: string; livemode: boolean }, adapter: CarrierAdapter, trackingNumber: string): Promise<Scan[]> {
      const max = adapter.definition.capabilities.trackingBatch ?? 1;
      if (!adapter.scansBatch || max <= 1) return admitted(t, () => adapter.scans(trackingNumber));
      return polls.run(keyOf(t), trackingNumber, max, (numbers) => admitted(t, () => adapter.scansBatch!(numbers)));
    },

    async subscribe(t: { carrier: string; livemode: boolean }, adapter: CarrierAdapter, trackingNumbers: string[]): Promise<{ subscribed: string[]; refused: string[] }> {
      const perCall = adapter.definition.capabilities.trackingSubscription?.perCall;
      if (!adapter.subscribeTracking || !perCall) {
        throw new CarrierError('definitive', `carrier ${t.carrier} pushes no scans`, { carrierCode: t.carrier });
      }
      const send = async (numbers: string[]) => {
        const answer = await admitted(t, () => adapter.subscribeTracking!(numbers));
        return new Map(numbers.map((n) => [n, answer.subscribed.includes(n)]));
      };
      const taken = await Promise.all(trackingNumbers.map((n) => subscriptions.run(keyOf(t), n, perCall, send)));
      return {
        subscribed: trackingNumbers.filter((_, i) => taken[i]),
        refused: trackingNumbers.filter((_, i) => !taken[i]),
      };
    },
  };
}
