// API access review time against the spec's aim of one working day (spec §1): weekends do not count.
import { describe, expect, it } from 'vitest';
import { formatDuration, reviewDueAt, reviewStatus, workingMsBetween } from '../../domain/index.js';

const at = (iso: string) => new Date(iso);
const HOUR = 3_600_000;

describe('API access review time', () => {
  it('is due one day later when asked on a working day before Friday', () => {
    expect(reviewDueAt(at('2026-11-24T10:00:00Z')).toISOString()).toBe('2026-11-25T10:00:00.000Z'); // Tue → Wed
  });

  it('skips the weekend: Friday afternoon is due Monday afternoon, Saturday is due by Tuesday 00:00', () => {
    expect(reviewDueAt(at('2026-11-27T15:30:00Z')).toISOString()).toBe('2026-11-30T15:30:00.000Z');
    expect(reviewDueAt(at('2026-11-28T09:00:00Z')).toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it('counts only working hours between a request and its review', () => {
    expect(workingMsBetween(at('2026-11-27T20:00:00Z'), at('2026-11-30T04:00:00Z'))).toBe(8 * HOUR);
    const fridayToMonday = reviewStatus(at('2026-11-27T20:00:00Z'), at('2026-11-30T04:00:00Z'), at('2026-12-05T00:00:00Z'));
    expect(fridayToMonday).toMatchObject({ withinAim: true, text: '8 h of working time taken (aim: 1 working day)' });
    const late = reviewStatus(at('2026-11-24T10:00:00Z'), null, at('2026-11-25T10:30:00Z'));
    expect(late).toMatchObject({ withinAim: false, text: '1 d of working time so far (aim: 1 working day)' });
  });

  it('reads as people say it', () => {
    expect(formatDuration(45 * 60_000)).toBe('45 min');
    expect(formatDuration(3 * HOUR + 20 * 60_000)).toBe('3 h 20 min');
    expect(formatDuration(49 * HOUR)).toBe('2 d 1 h');
    expect(formatDuration(-5)).toBe('0 min');
  });
});
