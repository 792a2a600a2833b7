import { findShipment, type Db, type LabelStore } from '../../db/index.js';
import type { Address, Parcel } from '../../domain/index.js';
import { contentTypeFor, LABEL_FORMATS, renderLabel } from './render/index.js';

/**
 * Renders the three label files once, when the purchase completes, and stores them; downloads
 * never render again.
 */
export function createLabelActivities(deps: { db: Db; store: LabelStore; carrierName(code: string): string }) {
  return {
    async storeLabels(p: { shipmentId: string; trackingNumber: string }): Promise<void> {
      const row = await findShipment(deps.db, p.shipmentId);
      if (!row) throw new Error(`shipment ${p.shipmentId} not found`);
      for (const format of LABEL_FORMATS) {
        if (await deps.store.get(p.shipmentId, format)) continue; // a retry after a partial run
        const content = await renderLabel(
          {
            shipmentId: row.id,
            trackingNumber: p.trackingNumber,
            carrierName: deps.carrierName(row.carrier ?? ''),
            serviceName: row.serviceName ?? row.serviceCode,
            reference: row.reference,
            from: row.fromAddress as Address,
            to: row.toAddress as Address,
            weightG: (row.parcel as Parcel).weight_g,
            date: row.createdAt.toISOString(),
            sandbox: !row.livemode,
          },
          format,
        );
        await deps.store.put(p.shipmentId, format, contentTypeFor(format), content);
      }
    },
  };
}
export type LabelActivities = ReturnType<typeof createLabelActivities>;
