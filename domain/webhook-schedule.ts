/** Waits after each failed attempt: 10 s, 1 min, 5 min, 30 min, 2 h (spec §6 delivery rules, §8). */
export const WEBHOOK_RETRY_DELAYS_MS = [10_000, 60_000, 300_000, 1_800_000, 7_200_000] as const;
/** The first attempt plus one per delay. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;
