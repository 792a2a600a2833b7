import type { LabelStore, ShipmentRow } from '../db/index.js';
import type { Address, Parcel } from '../domain/index.js';
import { contentTypeFor, LABEL_FORMATS, labelRenderer, type LabelFormat, type LabelInput } from './render/index.js';

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
  return store.getOrMake(row.id, format, async () => fileOf(labelRenderer(labelInputOf(row, carrierName)), format));
}

/**
 * Every label file of a shipment not stored yet, rendered and stored in one transaction. The
 * formats share one layout (and barcode), computed only if a file is missing.
 */
export function allLabelFiles(store: LabelStore, row: ShipmentRow & { trackingNumber: string }, carrierName: (code: string) => string): Promise<void> {
  let render: ((format: LabelFormat) => Promise<Uint8Array>) | undefined;
  return store.makeMissing(row.id, LABEL_FORMATS, async (format) => {
    render ??= labelRenderer(labelInputOf(row, carrierName));
    return fileOf(render, format as LabelFormat);
  });
}

async function fileOf(render: (format: LabelFormat) => Promise<Uint8Array>, format: LabelFormat) {
  return { contentType: contentTypeFor(format), content: await render(format) };
}

function labelInputOf(row: ShipmentRow & { trackingNumber: string }, carrierName: (code: string) => string): LabelInput {
  return {
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
  };
}
