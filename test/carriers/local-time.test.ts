// The local clock of a US address (and a US territory's), as USPS's mailing date and the carriers'
// pickup times need it: zones by state, refined by ZIP where a large area sits across a zone line.
import { describe, expect, it } from 'vitest';
import { localDate, localHhmm, timeZoneOf, usTimeZone } from '../../carriers/local-time.js';
import type { Address } from '../../domain/index.js';

const at = (state: string, postcode: string, country = 'US') => ({ name: 'A', line1: '1 St', city: 'C', state, postcode, country }) as Address;

describe('US time zones', () => {
  it('by state, with the territories and freely associated states', () => {
    expect(usTimeZone(at('NY', '10118'))).toBe('America/New_York');
    expect(usTimeZone(at('AK', '99501'))).toBe('America/Anchorage');
    expect(usTimeZone(at('HI', '96814'))).toBe('Pacific/Honolulu');
    expect(usTimeZone(at('GU', '96913'))).toBe('Pacific/Guam');
    expect(usTimeZone(at('MP', '96950'))).toBe('Pacific/Saipan');
    expect(usTimeZone(at('AS', '96799'))).toBe('Pacific/Pago_Pago');
    expect(usTimeZone(at('PR', '00901'))).toBe('America/Puerto_Rico');
    expect(usTimeZone(at('VI', '00802'))).toBe('America/St_Thomas');
    expect(usTimeZone(at('PW', '96940'))).toBe('Pacific/Palau');
  });

  it('by ZIP where a state spans two zones', () => {
    expect(usTimeZone(at('FL', '32501'))).toBe('America/Chicago'); // Pensacola
    expect(usTimeZone(at('FL', '33101'))).toBe('America/New_York'); // Miami
    expect(usTimeZone(at('TX', '79901'))).toBe('America/Denver'); // El Paso
    expect(usTimeZone(at('TN', '37902'))).toBe('America/New_York'); // Knoxville
    expect(usTimeZone(at('TN', '37203'))).toBe('America/Chicago'); // Nashville
  });

  it('a territory written as its own country, and other countries of one zone', () => {
    expect(timeZoneOf(at('', '96913', 'GU'))).toBe('Pacific/Guam');
    expect(timeZoneOf({ name: 'A', line1: '1 St', city: 'London', postcode: 'SE1 2UP', country: 'GB' })).toBe('Europe/London');
    expect(timeZoneOf({ name: 'A', line1: '1 St', city: 'Toronto', postcode: 'M5V 2T6', country: 'CA' })).toBeUndefined();
  });
});

describe('local dates and times', () => {
  it("reads an instant on the location's clock, daylight saving included", () => {
    // 15:30 UTC on 1 July: 01:30 on 2 July in Guam, 11:30 in New York (EDT), 05:30 in Honolulu.
    const instant = '2026-07-01T15:30:00Z';
    expect(localDate(instant, 'Pacific/Guam')).toBe('2026-07-02');
    expect(localDate(instant, 'America/New_York')).toBe('2026-07-01');
    expect(localHhmm(instant, 'America/New_York')).toBe('1130');
    expect(localHhmm(instant, 'Pacific/Honolulu')).toBe('0530');
    // In January New York is five hours behind UTC: 15:00Z is 10:00.
    expect(localHhmm('2027-01-12T15:00:00Z', 'America/New_York')).toBe('1000');
    expect(localHhmm('2027-01-12T05:00:00Z', 'America/New_York')).toBe('0000');
  });
});
