import { findShipment, type Db, type LabelStore } from '../db/index.js';
import { missingRow } from './shipments.js';
import { labelFile, LABEL_FORMATS } from '../labels/index.js';

/**
 * Renders the three label files once the purchase has been answered, and stores them. A download
 * that arrives first renders its file itself (the same function), so no file is ever rendered twice.
 */
export function createLabelActivities(deps: { db: Db; store: LabelStore; carrierName(code: string): string }) {
  return {
    async storeLabels(p: { shipmentId: string; trackingNumber: string }): Promise<void> {
      const row = await findShipment(deps.db, p.shipmentId);
      if (!row) missingRow(p.shipmentId);
      for (const format of LABEL_FORMATS) {
        await labelFile(deps.store, { ...row, trackingNumber: p.trackingNumber }, format, deps.carrierName);
      }
    },
  };
}
export type LabelActivities = ReturnType<typeof createLabelActivities>;
