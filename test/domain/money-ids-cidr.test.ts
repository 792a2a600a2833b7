import { describe, expect, it } from 'vitest';
import { formatAmount, ipAllowed, isId, isValidCidr, makeId, parseAmount, priceWithVat } from '../../domain/index.js';

describe('money', () => {
  it('parses and formats decimal strings in minor units', () => {
    expect(parseAmount('12.30')).toBe(1230);
    expect(parseAmount('12.3')).toBe(1230);
    expect(parseAmount('0.05')).toBe(5);
    expect(parseAmount('12')).toBe(1200);
    for (const bad of ['-1', '1.234', 'abc', '', '01.00', '1e3']) expect(parseAmount(bad), bad).toBeNull();
    expect(formatAmount(1230)).toBe('12.30');
    expect(formatAmount(5)).toBe('0.05');
    expect(formatAmount(-250)).toBe('-2.50');
  });

  it('keeps gross = net + vat exactly', () => {
    for (const net of [1, 99, 595, 1234, 99999]) {
      const p = priceWithVat(net, 20, 'GBP');
      expect(p.gross).toBe(p.net + p.vat);
      expect(Number.isInteger(p.vat)).toBe(true);
    }
  });

  it('rounds VAT half-up exactly, whatever the rate', () => {
    // Exact halves that floating point put just below: 8.75 at 9.2 % is 0.805, at 16.4 % 1.435.
    expect(priceWithVat(875, 9.2, 'EUR')).toEqual({ net: 875, vat: 81, gross: 956, currency: 'EUR' });
    expect(priceWithVat(875, 16.4, 'EUR').vat).toBe(144);
    expect(priceWithVat(25_000, 0.29, 'EUR').vat).toBe(73);
    for (let rateBp = 0; rateBp <= 9_999; rateBp += 7) {
      for (const net of [1, 375, 495, 875, 1_500, 5_500, 10_500, 99_999]) {
        expect(priceWithVat(net, rateBp / 100, 'GBP').vat, `${net} at ${rateBp / 100} %`).toBe(Math.floor((net * rateBp + 5_000) / 10_000));
      }
    }
  });
});

describe('ids', () => {
  it('are prefixed, URL-safe and sort by time', () => {
    const a = makeId('shp', 1_700_000_000_000, new Uint8Array(16).fill(7));
    const b = makeId('shp', 1_700_000_000_001, new Uint8Array(16).fill(0));
    expect(a).toMatch(/^shp_[0-9a-z]{26}$/);
    expect(isId('shp', a)).toBe(true);
    expect(isId('evt', a)).toBe(false);
    expect(a < b).toBe(true);
  });
});

describe('CIDR allowlists', () => {
  it('matches IPv4, IPv6 and IPv4-mapped addresses', () => {
    expect(ipAllowed('10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('11.1.2.3', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('::ffff:127.0.0.1', ['127.0.0.0/8'])).toBe(true);
    expect(ipAllowed('::1', ['::1/128'])).toBe(true);
    expect(ipAllowed('2001:db8::5', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db9::5', ['2001:db8::/32'])).toBe(false);
    expect(ipAllowed('203.0.113.9', ['203.0.113.9'])).toBe(true);
    for (const good of ['10.0.0.0/8', '::1/128', '2001:db8::/32', '1.2.3.4']) expect(isValidCidr(good), good).toBe(true);
    for (const bad of ['10.0.0.0/33', '300.1.1.1/8', 'abc', '10.0.0.0/8/1', '::/129']) expect(isValidCidr(bad), bad).toBe(false);
  });
});
