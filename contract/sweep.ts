/** The orphan sweep (workflows/sweep.ts), run by its Schedule (workers/schedules.ts). */
export interface OrphanSweepInput {
  /** Only rows older than this are the sweep's: younger ones may still be under way. */
  olderThanMs: number;
}

export interface OrphanSweepResult {
  failed: string[];
  deliveriesStarted: string[];
  settling: string[];
}
