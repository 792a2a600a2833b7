import { addressLimits, carrierRates, priceCacheOf, shipmentHash, type CarrierDefinition, type CarrierQuote } from '../../carriers/index.js';
import { recordQuotes, type AccountRow, type NewQuote } from '../../db/index.js';
import { ApiError, CODE, priceToJson, priceWithVat, type Address, type Customs, type ErrorCode, type Parcel } from '../../domain/index.js';
import { rateCardItems, type Catalog, type QuoteTerms } from '../catalog.js';
import type { AppContext } from '../context.js';

/** A quote item's life: until then a purchase of it charges exactly its price (contract: Carriers). */
export const QUOTE_TTL_MS = 15 * 60_000;
/** Each carrier's share of the answer's 5 s: all are asked at once, so this bounds the whole quote. */
export const CARRIER_QUOTE_DEADLINE_MS = 4_000;

export interface Unavailable {
  carrier: string;
  code: ErrorCode;
  message: string;
}

type Item = ReturnType<typeof rateCardItems>[number];

/**
 * Every service offered for the parcel and route: rate cards priced here, carriers with a rating
 * API asked in parallel under one deadline. The live carrier-priced items are recorded, so a
 * purchase within `expires_at` charges exactly them. Carriers that failed, were too slow or cannot take the
 * addresses are listed in `unavailable`; the others' items are still the answer.
 */
export async function quoteShipment(
  ctx: Pick<AppContext, 'catalog' | 'db' | 'now'>,
  caller: { account: AccountRow; livemode: boolean },
  parcel: Parcel,
  from: Address,
  to: Address,
  o: { deadlineMs?: number; terms?: QuoteTerms } = {},
) {
  const { account, livemode } = caller;
  const terms = o.terms ?? {};
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + QUOTE_TTL_MS);
  const items: Item[] = rateCardItems(ctx.catalog, account, parcel, from, to, terms);
  const unavailable: Unavailable[] = [];
  const recorded: NewQuote[] = [];
  const hash = shipmentHash(parcel, from, to, terms);

  const carriers = ctx.catalog.adapter ? ctx.catalog.definitions.filter((d) => d.pricing === 'carrier') : [];
  const answers = await Promise.all(
    carriers.map(async (definition): Promise<{ definition: CarrierDefinition; answer: CarrierQuote }> => {
      try {
        const adapter = ctx.catalog.adapter!(definition.code, livemode);
        const deadlineMs = o.deadlineMs ?? CARRIER_QUOTE_DEADLINE_MS;
        return { definition, answer: await carrierRates(adapter, priceCacheOf(ctx.catalog), { livemode, parcel, from, to, currency: account.currency, deadlineMs, ...terms }) };
      } catch {
        // An adapter that cannot be made (a setting gone bad) fails its carrier, never the quote.
        return { definition, answer: { ok: false, code: CODE.carrier_unavailable, message: `${definition.name} cannot be reached; try again shortly.` } };
      }
    }),
  );
  for (const { definition, answer } of answers) {
    if (!answer.ok) {
      unavailable.push({ carrier: definition.code, code: answer.code, message: answer.message });
      continue;
    }
    for (const rate of answer.rates) {
      const service = definition.services.find((s) => s.code === rate.serviceCode)!;
      const price = priceWithVat(rate.net, account.vatRateBp / 100, rate.currency);
      items.push({
        service: { code: service.code, carrier: definition.code, name: service.name },
        price: priceToJson(price),
        estimated_delivery_days: rate.estimatedDeliveryDays ?? service.estimatedDeliveryDays,
        gross: price.gross,
      });
      // Sandbox prices come from a fixed card, so a purchase prices them the same without a record.
      if (livemode) recorded.push({ accountId: account.id, livemode, serviceCode: service.code, shipmentHash: hash, ...price, expiresAt, createdAt: now });
    }
  }
  await recordQuotes(ctx.db, recorded);
  items.sort((a, b) => a.gross - b.gross || (a.service.code < b.service.code ? -1 : 1));
  unavailable.sort((a, b) => (a.carrier < b.carrier ? -1 : 1));
  const expires_at = expiresAt.toISOString();
  return { items: items.map(({ gross: _gross, ...item }) => ({ ...item, expires_at })), unavailable };
}

/**
 * A purchase of a carrier-priced service whose addresses the carrier cannot take is refused before
 * anything starts (422 naming each field and the carrier's limit), and so is one missing what the
 * carrier needs only to buy (`purchase`: a phone abroad at UPS, a customs declaration USPS's form cannot take); a route the carrier does not serve
 * is left to the purchase, which answers service_not_available.
 */
export function checkCarrierAddresses(
  catalog: Catalog,
  livemode: boolean,
  serviceCode: string,
  from: Address,
  to: Address,
  terms: QuoteTerms = {},
  purchase?: { parcel: Parcel; customs?: Customs; currency: string },
): void {
  const carrier: CarrierDefinition | undefined = catalog.definitions.find((d) => d.services.some((s) => s.code === serviceCode));
  if (!carrier || carrier.pricing !== 'carrier' || !catalog.adapter) return;
  const adapter = catalog.adapter(carrier.code, livemode);
  const { serves, problems } = addressLimits(adapter, from, to, terms);
  if (serves && purchase && adapter.purchaseProblems) {
    const { parcel, customs, currency } = purchase;
    problems.push(...adapter.purchaseProblems({ serviceCode, from, to, parcel, currency, ...terms, ...(customs ? { customs } : {}) }));
  }
  if (problems.length) {
    throw new ApiError(CODE.validation_failed, `${carrier.name} cannot take this shipment as it is; see errors.`, { errors: problems });
  }
}
