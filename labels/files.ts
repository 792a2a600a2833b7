import type { LabelStore, ShipmentRow } from '../db/index.js';
import type { Address, Parcel } from '../domain/index.js';
import { contentTypeFor, LABEL_FORMATS, renderLabel, type LabelFormat } from './render/index.js';

/**
 * A shipment's label file in one format: the stored one, or rendered now and stored. The render
 * after a purchase and a download that arrives before it share this, so each file is rendered at
 * most once, ever.
 */
export function labelFile(
  store: LabelStore,
  row: ShipmentRow & { trackingNumber: string },
  format: LabelFormat,
  carrierName: (code: string) => string,
): Promise<{ contentType: string; content: Buffer }> {
  return store.getOrMake(row.id, format, () => render(row, format, carrierName));
}

/** Every label file of a shipment not stored yet, rendered and stored in one transaction. */
export function allLabelFiles(store: LabelStore, row: ShipmentRow & { trackingNumber: string }, carrierName: (code: string) => string): Promise<void> {
  return store.makeMissing(row.id, LABEL_FORMATS, (format) => render(row, format as LabelFormat, carrierName));
}

async function render(row: ShipmentRow & { trackingNumber: string }, format: LabelFormat, carrierName: (code: string) => string) {
  return {
    contentType: contentTypeFor(format),
    content: await renderLabel(
      {
        shipmentId: row.id,
        trackingNumber: row.trackingNumber,
        carrierName: carrierName(row.carrier ?? ''),
        serviceName: row.serviceName ?? row.serviceCode,
        reference: row.reference,
        from: row.fromAddress as Address,
        to: row.toAddress as Address,
        weightG: (row.parcel as Parcel).weight_g,
        date: row.createdAt.toISOString(),
        sandbox: !row.livemode,
      },
      format,
    ),
  };
}
