// `?created_after=` takes ISO 8601 as the contract says, not only RFC 3339's profile of it.
import { describe, expect, it } from 'vitest';
import { parseIsoInstant } from '../../domain/index.js';

const iso = (text: string) => parseIsoInstant(text)?.toISOString();

describe('parseIsoInstant', () => {
  it('reads a date alone as midnight UTC, and a time to the minute, the second or a fraction', () => {
    expect(iso('2026-11-24')).toBe('2026-11-24T00:00:00.000Z');
    expect(iso('2026-11-24T10:00Z')).toBe('2026-11-24T10:00:00.000Z');
    expect(iso('2026-11-24T10:00:05Z')).toBe('2026-11-24T10:00:05.000Z');
    expect(iso('2026-11-24T10:00:05.123456Z')).toBe('2026-11-24T10:00:05.123Z');
    expect(iso('2026-11-24t10:00:05,5z')).toBe('2026-11-24T10:00:05.500Z');
  });

  it('applies the offset in each of its forms, and takes a + that a query string turned into a space', () => {
    for (const text of ['2026-11-24T11:00+01:00', '2026-11-24T11:00+0100', '2026-11-24T11:00+01', '2026-11-24T11:00 01:00', '2026-11-24T08:30-01:30']) {
      expect(iso(text), text).toBe('2026-11-24T10:00:00.000Z');
    }
  });

  it('reads the basic format too', () => {
    expect(iso('20261124')).toBe('2026-11-24T00:00:00.000Z');
    expect(iso('20261124T100000Z')).toBe('2026-11-24T10:00:00.000Z');
    expect(iso('20261124T1100+0100')).toBe('2026-11-24T10:00:00.000Z');
  });

  it('keeps the years 0001 to 0099 as they are', () => {
    expect(iso('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000Z');
    expect(iso('0099-06-01')).toBe('0099-06-01T00:00:00.000Z');
  });

  it('refuses what names no instant: no offset on a time, no such day or hour, outside 0001 to 9999 in UTC, a leap second, other text', () => {
    for (const text of [
      '2026-11-24T10:00',
      '2026-11-24T10:00:00',
      '2026-02-29',
      '2026-13-01',
      '2026-11-31',
      '2026-11-24T24:00Z',
      '2026-11-24T10:60Z',
      '2026-06-30T23:59:60Z',
      '2026-11-24T10:00+24:00',
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00+01:00',
      '9999-12-31T23:59:59-01:00',
      'yesterday',
      '',
      '2026-11-24T10:00:00ZZ',
      '2026-1124',
      '1795515645',
    ]) {
      expect(parseIsoInstant(text), text).toBeUndefined();
    }
    expect(iso('2028-02-29')).toBe('2028-02-29T00:00:00.000Z');
  });
});
