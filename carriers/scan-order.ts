import type { Scan } from './types.js';

/** Scans oldest first by `occurredAt`; scans of the same instant keep the carrier's order. */
export function oldestFirst(scans: readonly Scan[]): Scan[] {
  return scans
    .map((scan, index) => ({ scan, index, at: Date.parse(scan.occurredAt) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ scan }) => scan);
}
