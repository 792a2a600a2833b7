import { describe, expect, it } from 'vitest';
import { applyScan, canTransition, eventForStatus, isTerminal, isVoidable, SHIPMENT_STATUSES, type ShipmentStatus } from '../../domain/index.js';

const LEGAL: Array<[ShipmentStatus, ShipmentStatus]> = [
  ['pending', 'purchased'],
  ['pending', 'failed'],
  ['purchased', 'in_transit'],
  ['purchased', 'exception'],
  ['purchased', 'delivered'],
  ['purchased', 'voiding'],
  ['in_transit', 'exception'],
  ['in_transit', 'delivered'],
  ['exception', 'in_transit'],
  ['exception', 'delivered'],
  ['voiding', 'voided'],
  ['voiding', 'purchased'],
];

describe('the shipment state machine', () => {
  it('allows exactly the transitions of spec §3 and the contract', () => {
    for (const from of SHIPMENT_STATUSES) {
      for (const to of SHIPMENT_STATUSES) {
        const legal = LEGAL.some(([a, b]) => a === from && b === to);
        expect(canTransition(from, to), `${from} → ${to}`).toBe(legal);
      }
    }
  });

  it('makes delivered, voided and failed terminal (spec §3 rule 4)', () => {
    expect(SHIPMENT_STATUSES.filter(isTerminal).sort()).toEqual(['delivered', 'failed', 'voided']);
  });

  it('lets only an unscanned purchased label be voided (spec §3 rule 2)', () => {
    expect(SHIPMENT_STATUSES.filter(isVoidable)).toEqual(['purchased']);
  });

  it('moves through scans, counting out-for-delivery as in transit and ignoring scans after the end', () => {
    expect(applyScan('purchased', 'in_transit')).toBe('in_transit');
    expect(applyScan('in_transit', 'out_for_delivery')).toBe('in_transit');
    expect(applyScan('in_transit', 'exception')).toBe('exception');
    expect(applyScan('exception', 'in_transit')).toBe('in_transit');
    expect(applyScan('exception', 'delivered')).toBe('delivered');
    expect(applyScan('delivered', 'in_transit')).toBe('delivered');
    expect(applyScan('voided', 'in_transit')).toBe('voided');
    expect(applyScan('in_transit', 'in_transit')).toBe('in_transit');
  });

  it('names the event of each status change', () => {
    expect(eventForStatus('purchased')).toBe('shipment.purchased');
    expect(eventForStatus('in_transit')).toBe('shipment.in_transit');
    expect(eventForStatus('exception')).toBe('shipment.exception');
    expect(eventForStatus('delivered')).toBe('shipment.delivered');
    expect(eventForStatus('voided')).toBe('shipment.voided');
    expect(eventForStatus('voiding')).toBeNull();
  });
});
