import { randomBytes } from 'node:crypto';
import type { recordBatchRequest } from '../../db/index.js';
import { ApiError, CODE, makeId, normalizeCustoms, requestedOptions, type ErrorCode } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import type { Caller } from '../auth.js';
import { serviceOf } from '../catalog.js';
import type { BatchItem } from '../schemas-shipment.js';
import { checkCarrierAddresses } from './quote.js';
import { checkOptions, shipmentTerms, type ShipmentTermsOf } from './shipment-terms.js';

/** Who a batch is bought for: an API key's caller, or a portal user's account in one mode. */
export type BatchBuyer = Pick<Caller, 'account' | 'livemode'>;

type ItemRow = Parameters<typeof recordBatchRequest>[1]['items'][number];
type Refusal = { code: ErrorCode; message: string };

/**
 * A refusal of the single purchase as an item's failure: the fields at fault for a
 * `validation_failed` (`customs is required when …`), the refusal's own words otherwise
 * (`option_not_supported` names the option and the service).
 */
function refusalOf(err: unknown): Refusal {
  if (!(err instanceof ApiError)) throw err;
  const errors = err.extra.errors ?? [];
  if (err.code === CODE.validation_failed && errors.length) return { code: err.code, message: errors.map((e) => `${e.path} ${e.message}`).join('; ') };
  return { code: err.code, message: err.message };
}

/**
 * The checks a single purchase makes after its schema (api/routes/shipments.ts), in its order: the
 * addresses, customs and options together, then whether the service honours the options, then
 * whether a carrier priced by its rating API takes the addresses. In a batch each decides its item
 * only (contract: Batches): the item fails with the code and the fields a single purchase would
 * answer, nothing is started or charged for it, and the other items go on.
 */
function itemTerms(ctx: AppContext, buyer: BatchBuyer, item: BatchItem): { terms: ShipmentTermsOf; failure?: undefined } | { terms?: undefined; failure: Refusal } {
  try {
    const terms = shipmentTerms(item, buyer.account.currency, 'purchase');
    checkOptions(ctx.catalog, item.service, terms.options, terms.isReturn);
    checkCarrierAddresses(ctx.catalog, buyer.livemode, item.service, terms.from, terms.to, terms, {
      parcel: item.parcel,
      ...(terms.customs ? { customs: terms.customs } : {}),
      currency: buyer.account.currency,
    });
    return { terms };
  } catch (err) {
    return { failure: refusalOf(err) };
  }
}

/**
 * One item's row as the single purchase records it (api/services/purchase.ts), with its place in
 * the batch: pending, or failed already with the refusal a single purchase would have answered. A
 * failed item still shows what it asked for, its declaration with the contract's defaults filled.
 */
export function batchItemRow(ctx: AppContext, buyer: BatchBuyer, batchId: string, index: number, item: BatchItem, now: Date): ItemRow {
  const account = buyer.account;
  const service = serviceOf(ctx.catalog, item.service);
  const { terms, failure } = itemTerms(ctx, buyer, item);
  const options = terms ? terms.options : requestedOptions(item.options);
  const customs = terms ? terms.customs : item.customs && normalizeCustoms(item.customs, account.currency);
  return {
    id: makeId('shp', now.getTime(), randomBytes(16)),
    accountId: account.id,
    livemode: buyer.livemode,
    status: failure ? 'failed' : 'pending',
    reference: item.reference?.trim() || null,
    serviceCode: item.service,
    carrier: service?.carrier ?? null,
    serviceName: service?.name ?? null,
    fromAddress: terms?.from ?? item.from,
    toAddress: terms?.to ?? item.to,
    parcel: item.parcel,
    isReturn: item.is_return === true,
    options: options && Object.keys(options).length ? options : null,
    customs: customs ?? null,
    currency: account.currency,
    chargedTo: account.fundingSource,
    failureCode: failure?.code ?? null,
    failureMessage: failure?.message ?? null,
    batchId,
    batchIndex: index,
    createdAt: now,
    updatedAt: now,
  };
}
