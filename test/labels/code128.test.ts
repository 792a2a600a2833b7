import { describe, expect, it } from 'vitest';
import { code128 } from '../../labels/render/barcode.js';
import { barsToModules, decodeCode128, PATTERNS, STOP } from './code128.js';
import { TRACKING_SHAPES } from './fixtures.js';

const widths = (...patterns: string[]): number[] => patterns.join('').split('').map(Number);

// The decoder is the oracle for the label tests, so it is checked first on its own.
describe('Code 128 test decoder', () => {
  it('has 106 symbol characters of 11 modules with even bar widths, and a 13-module stop', () => {
    expect(PATTERNS).toHaveLength(107);
    expect(new Set(PATTERNS).size).toBe(107);
    PATTERNS.forEach((p, value) => {
      const w = p.split('').map(Number);
      expect(w.reduce((a, b) => a + b, 0)).toBe(value === STOP ? 13 : 11);
      const barModules = w.filter((_, i) => i % 2 === 0).reduce((a, b) => a + b, 0);
      expect(barModules % 2).toBe(0);
    });
  });

  it('decodes a symbol assembled by hand from the specification (start C, 12, 34)', () => {
    // Check character: (105 + 1·12 + 2·34) mod 103 = 82.
    expect(decodeCode128(widths('211232', '112232', '131123', '121241', '2331112'))).toBe('1234');
  });

  it('decodes set B text and a switch to set C', () => {
    // Start B, 'A' (33), Code C (99), 56; check (104 + 33 + 2·99 + 3·56) mod 103 = 503 mod 103 = 91.
    expect(decodeCode128(widths('211214', '111323', '113141', '331121', '412121', '2331112'))).toBe('A56');
  });

  it('rejects a wrong check character and a missing stop', () => {
    expect(() => decodeCode128(widths('211232', '112232', '131123', '121142', '2331112'))).toThrow(/check/);
    expect(() => decodeCode128(widths('211232', '112232', '131123', '121241', '2331121'))).toThrow(/stop/);
  });

  it.each(TRACKING_SHAPES)('reads back the bars bwip-js computes for %s', (tracking) => {
    const symbol = code128(tracking);
    const bars = symbol.bars.map((b) => ({ x: b.x * 1.4173, width: b.width * 1.4173 }));
    expect(decodeCode128(barsToModules(bars))).toBe(tracking);
  });

  it('refuses bar widths that are not whole modules', () => {
    expect(() =>
      barsToModules([
        { x: 0, width: 1 },
        { x: 2, width: 1.5 },
        { x: 4.5, width: 1 },
      ]),
    ).toThrow(/modules/);
  });
});
