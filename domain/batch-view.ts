/** The fields of a stored batch, with its items counted by status, that its public JSON is made from. */
export interface BatchRecord {
  id: string;
  livemode: boolean;
  status: string;
  labelFormat: string;
  createdAt: Date;
  completedAt: Date | null;
  counts: BatchCounts;
}

export interface BatchCounts {
  total: number;
  pending: number;
  purchased: number;
  failed: number;
}

/** The most items one batch takes (contract: Batches). */
export const BATCH_MAX_ITEMS = 1000;

export const BATCH_STATUSES = ['processing', 'completed'] as const;

/**
 * An item counts as purchased once its label was bought, whatever happened to it since (in transit,
 * delivered, voided): the batch reports what its purchases came to.
 */
export function countItems(byStatus: Array<{ status: string; n: number }>, total: number): BatchCounts {
  let pending = 0;
  let failed = 0;
  for (const { status, n } of byStatus) {
    if (status === 'pending') pending += n;
    else if (status === 'failed') failed += n;
  }
  return { total, pending, purchased: total - pending - failed, failed };
}

/** The batch as customers see it (contract: Batches). */
export function batchToJson(b: BatchRecord) {
  return {
    id: b.id,
    object: 'batch',
    livemode: b.livemode,
    status: b.status,
    label_format: b.labelFormat,
    counts: { total: b.counts.total, pending: b.counts.pending, purchased: b.counts.purchased, failed: b.counts.failed },
    created_at: b.createdAt.toISOString(),
    completed_at: b.completedAt ? b.completedAt.toISOString() : null,
  };
}
export type BatchJson = ReturnType<typeof batchToJson>;
