import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { ownPurchaseRow, recordPurchaseRequest, type ShipmentRow } from '../../db/index.js';
import { makeId, type FundingSource } from '../../domain/index.js';
import type { ShipmentWorkflowInput } from '../../contract/index.js';
import type { AppContext } from '../context.js';
import type { Caller } from '../auth.js';
import type { IdempotentRequest } from '../idempotency.js';
import { serviceOf } from '../catalog.js';
import { startPurchase } from '../shipment-workflow.js';
import { pushedCarriers } from '../carrier-push.js';
import { checkCarrierAddresses } from './quote.js';
import { checkOptions, type ShipmentTermsOf } from './shipment-terms.js';

/** What a purchase is made of, once its body is checked: the service, the parcel, its reference and terms. */
export interface PurchaseOrder {
  service: string;
  parcel: ShipmentWorkflowInput['parcel'];
  reference?: string;
  terms: ShipmentTermsOf;
  /** The shipment a return label returns (POST /shipments/{shipment}/return). */
  returnOf?: string;
}

/**
 * Who buys: an account in one mode. An API key's caller, or the portal's signed-in user acting for
 * their account in the mode the page shows (api/web/).
 */
export type Buyer = Pick<Caller, 'account' | 'livemode' | 'owner'>;

/** What a purchase request comes to: the stored first answer (a replay), or the shipment as it now is. */
export type PurchaseAnswer = { stored: { status: number; body: unknown } } | { stored: null; row: ShipmentRow };

/**
 * What a purchase must pass before anything is recorded or started: a service that honours its
 * options, and a carrier that can take its addresses and customs as they are (422 naming each field).
 */
export function checkPurchase(ctx: AppContext, buyer: Buyer, order: PurchaseOrder): void {
  checkOptions(ctx.catalog, order.service, order.terms.options, order.terms.isReturn);
  const { from, to, customs, options, isReturn } = order.terms;
  checkCarrierAddresses(ctx.catalog, buyer.livemode, order.service, from, to, { ...(options ? { options } : {}), isReturn }, {
    parcel: order.parcel,
    ...(customs ? { customs } : {}),
    currency: buyer.account.currency,
  });
}

/** The shipment workflow's input for a purchase, from the request, the account and the configuration. */
function workflowInput(ctx: AppContext, caller: Buyer, shipmentId: string, req: PurchaseOrder, reference: string | null): ShipmentWorkflowInput {
  const account = caller.account;
  const { terms } = req;
  return {
    shipmentId,
    accountId: account.id,
    livemode: caller.livemode,
    fundingSource: account.fundingSource as FundingSource,
    currency: account.currency,
    vatRateBp: account.vatRateBp,
    serviceCode: req.service,
    from: terms.from,
    to: terms.to,
    parcel: req.parcel,
    reference,
    // Each only when asked for: a purchase without them starts as it always has.
    ...(terms.customs ? { customs: terms.customs } : {}),
    ...(terms.options ? { options: terms.options } : {}),
    ...(terms.isReturn ? { isReturn: true } : {}),
    ...purchaseSettings(ctx),
  };
}

/** This API's settings of every purchase it starts, alone or in a batch: queues, deadlines, tracking. */
export function purchaseSettings(ctx: AppContext): Pick<ShipmentWorkflowInput, 'queuePrefix' | 'purchaseDeadlineMs' | 'strayLabelSettleMs' | 'tracking'> {
  // Parcels of a carrier that pushes scans (UPS Track Alert) are subscribed as their tracking starts.
  const push = pushedCarriers(ctx.config, ctx.catalog);
  return {
    queuePrefix: ctx.config.taskQueuePrefix,
    purchaseDeadlineMs: ctx.config.purchaseDeadlineMs,
    strayLabelSettleMs: ctx.config.strayLabelSettleMs,
    tracking: {
      minPollMs: ctx.config.trackingPollMinMs,
      maxPollMs: ctx.config.trackingPollMaxMs,
      continueAsNewAfterPolls: ctx.config.trackingContinueAsNewAfterPolls,
      ...(ctx.config.carrierTrackingSharePercent === 0 ? { sharedCarrierQueue: true } : {}),
      ...(push ? { push } : {}),
    },
  };
}

/**
 * A purchase request (docs/architecture.md#a-shipments-life, step 1): in one transaction claim the
 * idempotency key and insert the pending row; then Update-With-Start the purchase and wait for it up
 * to PURCHASE_WAIT_MS. The shipment's status then decides the answer. A repeated key joins the
 * purchase its first request started (never a second purchase) or gets the stored first answer.
 */
export async function requestPurchase(
  ctx: AppContext,
  caller: Buyer,
  req: PurchaseOrder,
  o: { idempotency?: IdempotentRequest; requestId: string; log: FastifyBaseLogger },
): Promise<PurchaseAnswer> {
  const idem = o.idempotency;
  const reference = req.reference?.trim() || null;
  const account = caller.account;
  let shipmentId = makeId('shp', Date.now(), randomBytes(16));
  // A pending (or failed) shipment shows its service's carrier and name from the start, not null
  // until the purchase prices it; an unknown code stays null and fails as service_not_available.
  const service = serviceOf(ctx.catalog, req.service);
  // The key is claimed and the pending row inserted in one transaction: a key never names a
  // shipment that does not exist, whatever stops this process in between.
  const recorded = await recordPurchaseRequest(
    ctx.db,
    {
      id: shipmentId,
      accountId: account.id,
      livemode: caller.livemode,
      status: 'pending',
      reference,
      serviceCode: req.service,
      carrier: service?.carrier ?? null,
      serviceName: service?.name ?? null,
      fromAddress: req.terms.from,
      toAddress: req.terms.to,
      parcel: req.parcel,
      isReturn: req.terms.isReturn,
      options: req.terms.options ?? null,
      customs: req.terms.customs ?? null,
      returnOf: req.returnOf ?? null,
      currency: account.currency,
      chargedTo: account.fundingSource,
      createdAt: ctx.now(),
      updatedAt: ctx.now(),
    },
    idem ? { ...idem.scope, fingerprint: idem.fingerprint } : undefined,
  );
  if (idem) {
    const settled = idem.settle(recorded.kind === 'existing' ? { claimed: false, row: recorded.key } : { claimed: true });
    if (settled.replay) return { stored: settled.replay };
    if (recorded.kind === 'existing') shipmentId = recorded.key.shipmentId!;
  }
  o.log.info({ shipment_id: shipmentId, replayed: idem?.replayed ?? false }, 'purchase requested');
  // Waits up to PURCHASE_WAIT_MS; the shipment's status then decides the answer.
  await startPurchase(ctx.temporal, workflowInput(ctx, caller, shipmentId, req, reference), idem?.key ?? o.requestId, ctx.config.purchaseWaitMs, {
    carrier: service?.carrier,
  });
  return { stored: null, row: (await ownPurchaseRow(ctx.db, caller.owner, shipmentId))! };
}
