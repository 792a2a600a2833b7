/**
 * API access review (spec §1: enabled by an administrator after a request in the portal, aimed at
 * one working day). Working days are Monday to Friday in UTC; a request made on a weekend is due
 * at the end of the next working day's equivalent hour, i.e. the clock only runs on working days.
 */
const DAY_MS = 86_400_000;
const isWorkingDay = (d: Date) => d.getUTCDay() !== 0 && d.getUTCDay() !== 6;
const startOfDay = (t: number) => t - (t % DAY_MS);

/** Working time between two instants, in ms (weekend hours do not count). */
export function workingMsBetween(from: Date, to: Date): number {
  let total = 0;
  let t = from.getTime();
  const end = to.getTime();
  while (t < end) {
    const next = Math.min(startOfDay(t) + DAY_MS, end);
    if (isWorkingDay(new Date(t))) total += next - t;
    t = next;
  }
  return total;
}

/** When one working day of review time has passed since the request. */
export function reviewDueAt(requestedAt: Date): Date {
  let t = requestedAt.getTime();
  let left = DAY_MS;
  while (left > 0) {
    const dayEnd = startOfDay(t) + DAY_MS;
    if (isWorkingDay(new Date(t))) {
      const step = Math.min(left, dayEnd - t);
      left -= step;
      t += step;
      if (left === 0) break;
    }
    t = dayEnd;
  }
  return new Date(t);
}

/** "3 h 20 min", "45 min", "2 d 1 h": a duration as a person reads it. */
export function formatDuration(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  if (d) return h ? `${d} d ${h} h` : `${d} d`;
  if (h) return m ? `${h} h ${m} min` : `${h} h`;
  return `${m} min`;
}

/** The review against the one-working-day aim: time taken (or waited so far) and whether it is within. */
export function reviewStatus(requestedAt: Date, reviewedAt: Date | null, now: Date) {
  const until = reviewedAt ?? now;
  const working = workingMsBetween(requestedAt, until);
  return {
    dueAt: reviewDueAt(requestedAt),
    workingMs: working,
    withinAim: working <= DAY_MS,
    text: `${formatDuration(working)} of working time ${reviewedAt ? 'taken' : 'so far'} (aim: 1 working day)`,
  };
}
