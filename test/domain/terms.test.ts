// A shipment answers its customs and options in the contract's money form (two places) whatever
// form of amount the request used, so the answer always matches the served document.
import { describe, expect, it } from 'vitest';
import { canonicalAmount, normalizeCustoms, requestedOptions } from '../../domain/index.js';

describe('amounts a purchase declares', () => {
  it('are written with exactly two places', () => {
    expect(canonicalAmount('1029')).toBe('1029.00');
    expect(canonicalAmount(' 30.5 ')).toBe('30.50');
    expect(canonicalAmount('0.01')).toBe('0.01');
    expect(canonicalAmount('not money')).toBe('not money');
  });

  it('in a declaration and in the options', () => {
    const customs = normalizeCustoms(
      { contents_type: 'gift', signer: 'Ann', items: [{ description: 'Mug', quantity: 1, value: '1029', weight_g: 300, origin_country: 'gb' }] },
      'GBP',
    );
    expect(customs.items[0]).toMatchObject({ value: '1029.00', origin_country: 'GB' });
    expect(requestedOptions({ declared_value: '250' })).toEqual({ declared_value: '250.00' });
  });
});
