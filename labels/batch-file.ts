import type { LabelStore, ShipmentRow } from '../db/index.js';
import { CarrierDocumentMissingError, UnsupportedCarrierDocumentError } from './carrier-label.js';
import { labelFile } from './files.js';
import { mergeLabelFiles } from './merge.js';

type BatchFormat = 'pdf_6x4' | 'pdf_a4' | 'zpl';

/**
 * A batch's merged label file from the items given (those with a label now, in item order): each
 * item's own label file in the batch's format, merged. `missing` names the items whose label does not
 * exist in that format (a real carrier that did not give its ZPL); then there is no file, since the
 * file is "every purchased label" and a printer run that silently lacks parcels is worse than none.
 * No items, no file. `onLabel` is told of each label taken (progress for a heartbeat).
 */
export async function mergedBatchFile(
  store: LabelStore,
  items: ShipmentRow[],
  format: BatchFormat,
  carrierName: (code: string) => string,
  onLabel: () => void = () => undefined,
): Promise<{ file: { contentType: string; content: Buffer } | null; missing: string[] }> {
  const files = [];
  const missing: string[] = [];
  for (const row of items) {
    if (!row.trackingNumber) continue; // a label always has one: nothing to print without it
    try {
      files.push(await labelFile(store, { ...row, trackingNumber: row.trackingNumber }, format, carrierName));
    } catch (err) {
      if (!(err instanceof CarrierDocumentMissingError || err instanceof UnsupportedCarrierDocumentError)) throw err;
      missing.push(row.id);
      continue;
    }
    onLabel();
  }
  if (missing.length || !files.length) return { file: null, missing };
  return { file: await mergeLabelFiles(format, files), missing };
}
