/**
 * ISO 8601 instants as a query parameter takes them (contract: `?created_after=` is ISO 8601): a
 * date alone (midnight UTC), or a date and a time with its offset (`Z`, `±hh:mm`, `±hhmm`, `±hh`),
 * in the extended (`2026-11-24T10:00Z`) or the basic format (`20261124T1000Z`), seconds and their
 * fraction optional. A time without an offset names no instant and is refused. A `+` sent
 * unencoded in a query string arrives as a space, so a space in the offset's place is a `+`.
 */
const EXTENDED = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+\- ]\d{2}(?::?\d{2})?))?$/;
const BASIC = /^(\d{4})(\d{2})(\d{2})(?:[Tt](\d{2})(\d{2})(?:(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+\- ]\d{2}(?:\d{2})?))?$/;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The instant `text` names, or undefined when it is not one of the forms above or not a real date. */
export function parseIsoInstant(text: string): Date | undefined {
  const m = EXTENDED.exec(text) ?? BASIC.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => (v === undefined ? undefined : Number(v))) as number[];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  // Date.UTC reads years 0 to 99 as 1900 to 1999: the year is set on its own.
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, millis);
  const at = local.getTime() - offsetMinutes * 60_000;
  // Years 0001 to 9999 once in UTC: what PostgreSQL and ISO strings round-trip.
  return at >= FIRST_INSTANT && at <= LAST_INSTANT ? new Date(at) : undefined;
}

const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
