import pg from 'pg';
import { CARRIER_MODULES, REAL_CARRIER_MODULES } from '../../carriers/index.js';
import type { Check } from './checks.js';
import type { createClients } from './clients.js';
import type { Random } from './random.js';
import { customsFor, DOMESTIC, GB_SERVICES, INTERNATIONAL_ROUTES, parcelFor, US_SERVICES, type ChaosCurrency, type Route } from './routes.js';
import { purchaseMark } from './schedule.js';

/**
 * The chaos run's labels beyond the bare shipment: labels abroad with customs, return labels
 * (`is_return`), and returns bought from a shipment (`POST /shipments/{id}/return`), all under the
 * same faults as the rest. Which services they use is not written down here: the carriers that
 * declare `capabilities.international` or `capabilities.returns` are asked through the API's own
 * quotes, so a carrier that declares one joins the run as soon as it quotes the route.
 */
type Clients = ReturnType<typeof createClients>;

const DEFINITIONS = [...CARRIER_MODULES, ...REAL_CARRIER_MODULES].map((m) => m.definition);
export const INTERNATIONAL_CARRIERS: ReadonlySet<string> = new Set(DEFINITIONS.filter((d) => d.capabilities.international).map((d) => d.code));
export const RETURN_CARRIERS: ReadonlySet<string> = new Set(DEFINITIONS.filter((d) => d.capabilities.returns).map((d) => d.code));

export interface TermsPool {
  /** Services abroad from this currency's sender, of carriers that ship abroad. */
  international: Array<{ route: Route; service: string }>;
  /** Services of the domestic route that make return labels. */
  returns: string[];
}
export type TermsPools = Record<ChaosCurrency, TermsPool>;

async function quoted(clients: Clients, key: string, body: unknown): Promise<Array<{ service: { code: string; carrier: string } }>> {
  const a = await clients.careful('POST', '/api/v1/quotes', key, body);
  if (a?.status !== 200) throw new Error(`quote refused: ${a?.status ?? 'no answer'} ${JSON.stringify(a?.body)}`);
  return a.body.data;
}

/** The services of each currency's routes abroad and returns, from quotes made before any fault starts. */
export async function discoverTerms(clients: Clients, keys: Record<ChaosCurrency, string>, log: (line: string) => void): Promise<TermsPools> {
  const pools = {} as TermsPools;
  for (const currency of Object.keys(keys) as ChaosCurrency[]) {
    const key = keys[currency];
    const international: TermsPool['international'] = [];
    for (const route of INTERNATIONAL_ROUTES[currency]) {
      // Quoted without customs, as a quote is; a purchase then carries them.
      for (const q of await quoted(clients, key, { from: route.from, to: route.to('Quote'), parcel: parcelFor(2) })) {
        if (INTERNATIONAL_CARRIERS.has(q.service.carrier)) international.push({ route, service: q.service.code });
      }
    }
    const home = DOMESTIC[currency];
    const returns = (await quoted(clients, key, { from: home.to('Customer'), to: home.from, parcel: parcelFor(2), is_return: true }))
      .filter((q) => RETURN_CARRIERS.has(q.service.carrier))
      .map((q) => q.service.code);
    pools[currency] = { international, returns };
    log(`  ${currency}: abroad ${international.map((x) => `${x.service} ${x.route.name}`).join(', ') || 'none'}; returns ${returns.join(', ') || 'none'}`);
  }
  return pools;
}

export interface PurchasePlan {
  body: Record<string, unknown>;
  kind: 'domestic' | 'international' | 'return';
  /** Whether the client then buys its return label by POST /shipments/{id}/return. */
  returnAfter: boolean;
}

/**
 * Purchase i of an account in this currency, by its place in the run so that a small run has every
 * kind: in each ten, two abroad with customs (the second then returned), one return label, one
 * domestic label of a carrier that makes returns (then returned), six as before. A kind without a
 * service on offer is bought domestic.
 */
export function purchasePlan(i: number, currency: ChaosCurrency, pools: TermsPools, random: Random, reference: string): PurchasePlan {
  const pool = pools[currency];
  const home = DOMESTIC[currency];
  const parcel = parcelFor(i);
  const slot = i % 10;
  if ((slot === 2 || slot === 7) && pool.international.length) {
    const { route, service } = random.pick(pool.international);
    const body = { service, from: route.from, to: route.to(purchaseMark('Recipient', i)), parcel, customs: customsFor(i), reference };
    return { body, kind: 'international', returnAfter: slot === 7 };
  }
  if (slot === 4 && pool.returns.length) {
    const body = { service: random.pick(pool.returns), from: home.to(purchaseMark('Customer', i)), to: home.from, parcel, is_return: true, reference };
    return { body, kind: 'return', returnAfter: false };
  }
  const returnAfter = slot === 9 && pool.returns.length > 0;
  const service = returnAfter ? random.pick(pool.returns) : random.pick(currency === 'USD' ? US_SERVICES : GB_SERVICES);
  return { body: { service, from: home.from, to: home.to(purchaseMark('Recipient', i)), parcel, reference }, kind: 'domestic', returnAfter };
}

/** A batch item i: every fifth abroad with customs, every tenth (offset) a return label; the rest from `services`. */
export function batchItemPlan(i: number, currency: ChaosCurrency, pools: TermsPools, services: readonly string[], reference: string): Record<string, unknown> {
  const pool = pools[currency];
  const home = DOMESTIC[currency];
  const parcel = parcelFor(i);
  if (i % 5 === 3 && pool.international.length) {
    const { route, service } = pool.international[Math.floor(i / 5) % pool.international.length];
    return { service, from: route.from, to: route.to(`Batch recipient ${i}`), parcel, customs: customsFor(i), reference };
  }
  if (i % 10 === 6 && pool.returns.length) {
    return { service: pool.returns[Math.floor(i / 10) % pool.returns.length], from: home.to(`Batch customer ${i}`), to: home.from, parcel, is_return: true, reference };
  }
  return { service: services[i % services.length], from: home.from, to: home.to(`Batch recipient ${i}`), parcel, reference };
}

interface Row {
  id: string;
  status: string;
  carrier: string | null;
  is_return: boolean;
  return_of: string | null;
  customs: { contents_type: string; items: unknown[] } | null;
  from_address: Record<string, string>;
  to_address: Record<string, string>;
  failure_code: string | null;
}

/** What the run bought of each kind (labels that reached `purchased` or beyond). */
export interface TermsTally {
  international: number;
  returns: number;
  returnsOfShipments: number;
}

const place = (a: Record<string, string>) => `${a.name}|${a.line1}|${a.city}|${a.postcode}|${a.country}`;
const bought = (r: Row) => r.status !== 'failed' && r.status !== 'pending';

/** The checks of labels abroad and return labels, each a row of the table, and the tally of what was bought. */
export async function termsChecks(databaseUrl: string, accountIds: string[]): Promise<{ checks: Check[]; tally: TermsTally }> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  let rows: Row[];
  try {
    rows = (
      await db.query<Row>(
        `select id, status, carrier, is_return, return_of, customs, from_address, to_address, failure_code from shipments where account_id = any($1) and livemode`,
        [accountIds],
      )
    ).rows;
  } finally {
    await db.end();
  }
  const byId = new Map(rows.map((r) => [r.id, r]));
  const sample = (bad: string[]) => `${bad.length}: ${bad.slice(0, 4).join('; ')}${bad.length > 4 ? '; …' : ''}`;
  const check = (name: string, bad: string[], okDetail: string): Check => ({ name, ok: bad.length === 0, detail: bad.length ? sample(bad) : okDetail });
  const byCarrier = (list: Row[]) => [...new Set(list.map((r) => r.carrier))].map((c) => `${c} ×${list.filter((r) => r.carrier === c).length}`).join(', ');

  const abroad = rows.filter((r) => r.from_address.country !== r.to_address.country);
  const customsBad: string[] = [];
  for (const r of rows) {
    const crosses = r.from_address.country !== r.to_address.country;
    // A failed item may keep the declaration it sent; a label bought abroad always has one, one at home never.
    if (crosses && bought(r) && !r.customs?.items.length) customsBad.push(`${r.id} bought abroad without customs`);
    if (!crosses && bought(r) && r.customs) customsBad.push(`${r.id} bought at home with customs`);
    if (crosses && bought(r) && !INTERNATIONAL_CARRIERS.has(r.carrier ?? '')) customsBad.push(`${r.id} bought abroad from ${r.carrier}, which does not declare it ships abroad`);
  }
  const abroadBought = abroad.filter(bought);
  const failedCodes = [...new Set(abroad.filter((r) => !bought(r)).map((r) => r.failure_code))].join(', ');

  const returnsBad: string[] = [];
  const returns = rows.filter((r) => r.is_return || r.return_of);
  for (const r of returns) {
    if (!r.is_return) returnsBad.push(`${r.id} returns ${r.return_of} but is not is_return`);
    if (bought(r) && !RETURN_CARRIERS.has(r.carrier ?? '')) returnsBad.push(`${r.id} a return label from ${r.carrier}, which does not declare returns`);
    if (!r.return_of) continue;
    const original = byId.get(r.return_of);
    if (!original) {
      returnsBad.push(`${r.id} returns ${r.return_of}, which is not the run's`);
      continue;
    }
    if (place(r.from_address) !== place(original.to_address) || place(r.to_address) !== place(original.from_address)) returnsBad.push(`${r.id} does not swap ${original.id}'s addresses`);
    if (original.customs && r.customs?.contents_type !== 'returned_goods') returnsBad.push(`${r.id} returns goods from abroad declared as ${r.customs?.contents_type ?? 'nothing'}`);
  }
  const returnsBought = returns.filter(bought);
  const tally = { international: abroadBought.length, returns: returnsBought.length, returnsOfShipments: returnsBought.filter((r) => r.return_of).length };
  return {
    tally,
    checks: [
      check('labels abroad bought with their customs, from carriers that ship abroad', customsBad,
        `${abroad.length} abroad: ${abroadBought.length} bought (${byCarrier(abroadBought) || 'none'}), ${abroad.length - abroadBought.length} failed${failedCodes ? ` (${failedCodes})` : ''}`),
      check('return labels: is_return, addresses swapped, customs as returned goods', returnsBad,
        `${returns.length} returns: ${returnsBought.length} bought (${tally.returnsOfShipments} from a shipment; ${byCarrier(returnsBought) || 'none'})`),
    ],
  };
}
