import { describe, expect, it } from 'vitest';
import { itemLabelsProblem } from '../../tools/chaos/batches.js';

// The chaos run's batch check counts the labels the carrier bills for each item. DHL Express has no
// cancellation and bills only the labels it scans: a buy whose answer was lost is made again, and
// the first label is left unused. The check flagged that item as bought twice.
describe('the chaos run’s batch check of an item’s labels', () => {
  const dhl = { id: 'shp_dhl', status: 'purchased', service: { carrier: 'dhl_express' }, tracking: { number: '2000000002' } };

  it('counts only its own label at a carrier without cancellation', () => {
    const labels = [
      { tracking_number: '2000000001', cancelled: false },
      { tracking_number: '2000000002', cancelled: false },
    ];
    expect(itemLabelsProblem(dhl, labels)).toBeUndefined();
    expect(itemLabelsProblem({ ...dhl, status: 'failed', tracking: { number: null } }, labels)).toBeUndefined();
  });

  it('still flags two labels not cancelled at a carrier that cancels, and a failed item with one', () => {
    const ups = { id: 'shp_ups', status: 'purchased', service: { carrier: 'ups' }, tracking: { number: '1Z2' } };
    const two = [
      { tracking_number: '1Z1', cancelled: false },
      { tracking_number: '1Z2', cancelled: false },
    ];
    expect(itemLabelsProblem(ups, two)).toBe('shp_ups purchased with 2 live labels');
    expect(itemLabelsProblem(ups, [{ ...two[0], cancelled: true }, two[1]])).toBeUndefined();
    expect(itemLabelsProblem({ ...ups, status: 'failed' }, [two[0]])).toBe('shp_ups failed with 1 live labels');
  });
});
