import type { LabelStore, ShipmentRow, StoredCarrierLabel } from '../db/index.js';
import type { Address, Parcel } from '../domain/index.js';
import { carrierLabelFiles, type CarrierDocument, type CarrierDocumentFormat } from './carrier-label.js';
import { contentTypeFor, LABEL_FORMATS, labelRenderer, type LabelFormat, type LabelInput } from './render/index.js';

type LabelFileOut = { contentType: string; content: Uint8Array };
type Maker = (format: LabelFormat) => Promise<LabelFileOut>;

/**
 * A shipment's label file in one format: the stored one, or made now and stored. The render
 * after a purchase and a download that arrives before it share this, so each file is made at
 * most once, ever. A real carrier's label is made from the carrier's document as bought
 * (labels/carrier-label.ts); the sandbox's and the simulated carriers' are drawn by our renderer.
 *
 * Rejects with CarrierDocumentMissingError when the carrier's documents lack what the format needs
 * (a label bought as an image whose ZPL the carrier did not give).
 */
export function labelFile(
  store: LabelStore,
  row: ShipmentRow & { trackingNumber: string },
  format: LabelFormat,
  carrierName: (code: string) => string,
): Promise<{ contentType: string; content: Buffer }> {
  return store.getOrMake(row.id, format, async () => makerOf(row, await boughtLabel(store, row), carrierName)(format));
}

/**
 * Every label file of a shipment not stored yet, made and stored in one transaction. Drawn files
 * share one layout (and barcode), computed only if a file is missing; a carrier's document is
 * decoded once. A format the carrier's documents cannot give is left for a download to refuse.
 */
export async function allLabelFiles(store: LabelStore, row: ShipmentRow & { trackingNumber: string }, carrierName: (code: string) => string): Promise<void> {
  const bought = await boughtLabel(store, row);
  const formats = bought ? LABEL_FORMATS.filter((f) => carrierGives(bought, f)) : LABEL_FORMATS;
  let make: Maker | undefined;
  return store.makeMissing(row.id, formats, async (format) => {
    make ??= makerOf(row, bought, carrierName);
    return make(format as LabelFormat);
  });
}

/** Whether the carrier's documents make this format: the PDFs need its image or PDF, `zpl` its ZPL. */
function carrierGives(bought: StoredCarrierLabel, format: LabelFormat): boolean {
  return format === 'zpl' ? bought.format === 'zpl' || bought.zpl !== null : bought.format !== 'zpl';
}

/** The real carrier's label bought for a live shipment; sandbox labels are always ours to draw. */
async function boughtLabel(store: LabelStore, row: ShipmentRow): Promise<StoredCarrierLabel | undefined> {
  return row.livemode ? store.carrierLabel(row.id) : undefined;
}

function makerOf(row: ShipmentRow & { trackingNumber: string }, bought: StoredCarrierLabel | undefined, carrierName: (code: string) => string): Maker {
  if (bought) {
    const zpl = bought.zpl === null ? null : { format: 'zpl' as const, contentBase64: bought.zpl.toString('base64') };
    return carrierLabelFiles(documentOf(bought), zpl);
  }
  const render = labelRenderer(labelInputOf(row, carrierName));
  return async (format) => ({ contentType: contentTypeFor(format), content: await render(format) });
}

/** The stored document as labels/carrier-label.ts reads it; an unknown format is refused there. */
function documentOf(bought: StoredCarrierLabel): CarrierDocument {
  return { format: bought.format as CarrierDocumentFormat, contentBase64: bought.content.toString('base64') };
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
