/**
 * Local dates and times of US addresses, for carriers whose documents ask for the sender's or the
 * pickup location's own clock (USPS `mailingDate`, UPS `ReadyTime`/`CloseTime`). Zones are IANA
 * names read through Node's Intl, which carries the tz database with its daylight-saving rules.
 */
import type { Address } from '../domain/index.js';

/** Each state's and territory's zone: the one most of its people live in (ZIP prefixes refine below). */
const STATE_ZONES: Readonly<Record<string, string>> = {
  AL: 'America/Chicago', AK: 'America/Anchorage', AZ: 'America/Phoenix', AR: 'America/Chicago', CA: 'America/Los_Angeles',
  CO: 'America/Denver', CT: 'America/New_York', DE: 'America/New_York', DC: 'America/New_York', FL: 'America/New_York',
  GA: 'America/New_York', HI: 'Pacific/Honolulu', ID: 'America/Boise', IL: 'America/Chicago', IN: 'America/Indiana/Indianapolis',
  IA: 'America/Chicago', KS: 'America/Chicago', KY: 'America/New_York', LA: 'America/Chicago', ME: 'America/New_York',
  MD: 'America/New_York', MA: 'America/New_York', MI: 'America/Detroit', MN: 'America/Chicago', MS: 'America/Chicago',
  MO: 'America/Chicago', MT: 'America/Denver', NE: 'America/Chicago', NV: 'America/Los_Angeles', NH: 'America/New_York',
  NJ: 'America/New_York', NM: 'America/Denver', NY: 'America/New_York', NC: 'America/New_York', ND: 'America/Chicago',
  OH: 'America/New_York', OK: 'America/Chicago', OR: 'America/Los_Angeles', PA: 'America/New_York', RI: 'America/New_York',
  SC: 'America/New_York', SD: 'America/Chicago', TN: 'America/Chicago', TX: 'America/Chicago', UT: 'America/Denver',
  VT: 'America/New_York', VA: 'America/New_York', WA: 'America/Los_Angeles', WV: 'America/New_York', WI: 'America/Chicago',
  WY: 'America/Denver',
  // Territories and freely associated states, several a day ahead of UTC.
  PR: 'America/Puerto_Rico', VI: 'America/St_Thomas', GU: 'Pacific/Guam', MP: 'Pacific/Saipan', AS: 'Pacific/Pago_Pago',
  FM: 'Pacific/Pohnpei', MH: 'Pacific/Majuro', PW: 'Pacific/Palau', UM: 'Pacific/Wake',
};

const TERRITORIES = new Set(['PR', 'VI', 'GU', 'MP', 'AS', 'FM', 'MH', 'PW', 'UM']);

/** Three-digit ZIP prefixes in another zone than their state's: the large areas across a zone line. */
const ZIP3_ZONES: ReadonlyArray<[from: string, to: string, zone: string]> = [
  ['324', '325', 'America/Chicago'], // Florida's panhandle west of the Apalachicola
  ['376', '379', 'America/New_York'], // East Tennessee (Knoxville, Chattanooga)
  ['400', '418', 'America/New_York'], // Kentucky east of the line; the west (420–427) is central
  ['420', '427', 'America/Chicago'],
  ['463', '464', 'America/Chicago'], // Indiana's north-west (Gary)
  ['476', '477', 'America/Chicago'], // Indiana's south-west (Evansville)
  ['498', '499', 'America/Menominee'], // Michigan's Upper Peninsula on Wisconsin's border
  ['798', '799', 'America/Denver'], // El Paso
  ['885', '885', 'America/Denver'],
  ['835', '835', 'America/Los_Angeles'], // Idaho's panhandle (Lewiston)
  ['838', '838', 'America/Los_Angeles'], // (Coeur d'Alene)
  ['979', '979', 'America/Boise'], // Oregon's east (Ontario)
  ['967', '968', 'Pacific/Honolulu'],
  ['969', '969', 'Pacific/Guam'], // Guam, the Northern Marianas and the Pacific freely associated states share 969
];

/** The IANA zone of a US (or US territory) address, by state and ZIP; UTC where neither says. */
export function usTimeZone(address: Address): string {
  const zip3 = address.postcode.trim().slice(0, 3);
  const state = ((address as Address & { state?: unknown }).state as string | undefined)?.trim().toUpperCase() ?? '';
  const country = address.country.trim().toUpperCase();
  // A territory may be written as its own country code (GU, PR) rather than as US with a state.
  const byState = STATE_ZONES[state] ?? (country !== 'US' ? STATE_ZONES[country] : undefined);
  // A territory's own code names its zone exactly (969 is shared by several Pacific islands, and
  // American Samoa's 96799 sits among Hawaii's numbers).
  if (byState && TERRITORIES.has(state || country)) return byState;
  const byZip = /^\d{3}$/.test(zip3) ? ZIP3_ZONES.find(([from, to]) => zip3 >= from && zip3 <= to)?.[2] : undefined;
  return byZip ?? byState ?? 'UTC';
}

/** Countries of one zone that we serve, by ISO code; a country of several zones is not guessed. */
const COUNTRY_ZONES: Readonly<Record<string, string>> = {
  GB: 'Europe/London', IE: 'Europe/Dublin', FR: 'Europe/Paris', DE: 'Europe/Berlin', NL: 'Europe/Amsterdam', BE: 'Europe/Brussels',
  LU: 'Europe/Luxembourg', ES: 'Europe/Madrid', IT: 'Europe/Rome', AT: 'Europe/Vienna', CH: 'Europe/Zurich', PL: 'Europe/Warsaw',
  DK: 'Europe/Copenhagen', SE: 'Europe/Stockholm', NO: 'Europe/Oslo', FI: 'Europe/Helsinki', CZ: 'Europe/Prague', PT: 'Europe/Lisbon',
};

/**
 * The IANA zone of an address: a US one (or a territory's) by state and ZIP, another country's when
 * it has one zone; undefined where the address alone cannot say (a country of several zones).
 */
export function timeZoneOf(address: Address): string | undefined {
  const country = address.country.trim().toUpperCase();
  if (country === 'US' || TERRITORIES.has(country)) {
    const zone = usTimeZone(address);
    return zone === 'UTC' ? undefined : zone;
  }
  return COUNTRY_ZONES[country];
}

function parts(instant: Date, timeZone: string): Record<string, string> {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
}

/** `YYYY-MM-DD` of an instant on the clocks of a zone. */
export function localDate(instant: Date | string, timeZone: string): string {
  const p = parts(new Date(instant), timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `HHmm` (00–23 hours) of an instant on the clocks of a zone. */
export function localHhmm(instant: Date | string, timeZone: string): string {
  const p = parts(new Date(instant), timeZone);
  return `${p.hour}${p.minute}`;
}
