import { unconfirmedScanForms, type Db } from '../db/index.js';

/** A SCAN form whose carrier answer was lost (or whose file could not be read): it holds its shipments until an operator settles it. */
export interface StuckScanForm {
  scan_form_id: string;
  account_id: string;
  carrier: string;
  /** The carrier's number where it answered one, else null. */
  carrier_form_id: string | null;
  shipment_ids: string[];
  created_at: string;
  what_to_do: string;
}

/**
 * Forms recorded for longer than `olderThanMs` that the carrier never confirmed. Each was recorded
 * before the carrier was asked, holding its shipments against a void; the carrier may have made it.
 */
export async function findStuckScanForms(db: Db, o: { olderThanMs: number; now?: Date; accountId?: string }): Promise<StuckScanForm[]> {
  const now = o.now ?? new Date();
  const rows = await unconfirmedScanForms(db, new Date(now.getTime() - o.olderThanMs), o.accountId);
  return rows.map((r) => ({
    scan_form_id: r.id,
    account_id: r.accountId,
    carrier: r.carrier,
    carrier_form_id: r.carrierFormId || null,
    shipment_ids: r.shipmentIds,
    created_at: r.createdAt.toISOString(),
    what_to_do: r.carrierFormId
      ? `${r.carrier.toUpperCase()} made form ${r.carrierFormId} but its file could not be read: get it from the carrier; its shipments stay handed over`
      : `ask ${r.carrier.toUpperCase()} whether it made a form of these labels (our reference ${r.id}); if it made none, delete our record of it (scan_form_shipments, then scan_forms, of this id) and its shipments may be voided again`,
  }));
}

/** `ops stuck`'s text for them, one block each. */
export function formatStuckScanForms(forms: StuckScanForm[]): string {
  const lines = forms.flatMap((f) => [
    `${f.scan_form_id}  SCAN form unconfirmed since ${f.created_at}  carrier ${f.carrier}  account ${f.account_id}  ${f.shipment_ids.length} shipments`,
    `  the carrier's answer was lost: ${f.what_to_do}`,
  ]);
  return lines.length ? `${lines.join('\n')}\n` : '';
}
