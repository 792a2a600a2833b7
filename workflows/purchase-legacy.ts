import { CancellationScope, log, setCurrentDetails } from '@temporalio/workflow';
import type { PurchaseInput, PurchaseResult } from './purchase-types.js';
import { buyAtCarrier, failed, purchaseFailure } from './purchase-carrier.js';
import { paymentActivities, shipmentActivities } from './proxies.js';

/**
 * The purchase saga as shipments started before the lean path run it (kept so their histories
 * replay): price → reserve → buy at the carrier → capture. Each step that takes something pushes its compensation; a definitive failure runs them in
 * reverse, so nothing stays held and no label stays bought.
 */
export async function purchase(input: PurchaseInput): Promise<PurchaseResult> {
  const acts = shipmentActivities();
  const pay = paymentActivities();
  const compensations: Array<{ what: string; run: () => Promise<unknown> }> = [];
  const money = { accountId: input.accountId, shipmentId: input.shipmentId };
  // The sandbox never moves money (contract: Sandbox).
  const movesMoney = input.livemode;
  let carrier: string | null = null;
  // Set once a carrier call may have bought a label we never heard about.
  const unsure = { maybeBought: false };

  try {
    setCurrentDetails('pricing the service');
    const price = await acts.priceShipment({ ...input });
    carrier = price.carrier;

    if (movesMoney) {
      setCurrentDetails(`reserving ${price.gross} ${price.currency} (${input.fundingSource})`);
      if (input.fundingSource === 'card') {
        await pay.authorizeCard({ ...money, amount: price.gross, currency: price.currency });
        compensations.push({ what: 'void the card authorization', run: () => pay.voidCard(money) });
      }
      await acts.holdFunds({ ...money, amount: price.gross });
      compensations.push({ what: 'release the hold', run: () => acts.releaseFunds(money) });
    }

    const label = await buyAtCarrier(input, price.carrier, unsure);
    compensations.length = 0; // bought: from now on we only move forward

    let lowBalance: PurchaseResult['lowBalance'] = null;
    if (movesMoney) {
      setCurrentDetails('capturing the charge');
      if (input.fundingSource === 'card') await pay.captureCard(money);
      const captured = await acts.captureFunds(money);
      const t = captured.lowBalanceThreshold;
      if (
        captured.captured &&
        t !== null &&
        captured.availableBefore !== null &&
        captured.availableAfter !== null &&
        captured.availableBefore >= t &&
        captured.availableAfter < t
      ) {
        lowBalance = { available: captured.availableAfter };
      }
    }
    setCurrentDetails('storing the label');
    await acts.storeLabels({ shipmentId: input.shipmentId, trackingNumber: label.trackingNumber });
    await acts.markShipment({
      shipmentId: input.shipmentId,
      changes: { status: 'purchased', trackingNumber: label.trackingNumber, trackingStatus: 'label_created' },
    });
    return { outcome: { ok: true }, carrier, trackingNumber: label.trackingNumber, lowBalance, strayLabelCheck: false };
  } catch (err) {
    const failure = purchaseFailure(err);
    log.warn('purchase failed; compensating', { code: failure.code, message: failure.message });
    await CancellationScope.nonCancellable(async () => {
      for (const step of compensations.reverse()) {
        setCurrentDetails(`compensating: ${step.what}`);
        await step.run();
      }
      await acts.failShipment({ shipmentId: input.shipmentId, code: failure.code, message: failure.message });
    });
    return failed(failure, carrier, unsure.maybeBought);
  }
}
