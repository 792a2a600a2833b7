/** When a request is sent again, and after how long (the client's retry rules); and what is never sent at all. */

/** Not a 502 `carrier_error`, a definitive refusal: the key is free again, so a retry would buy anew. */
export const defaultRetryable = (status: number, code: string | undefined) =>
  status === 429 || (status >= 500 && code !== 'carrier_error') || (status === 409 && code === 'idempotency_key_in_use');

/**
 * A POST the API takes no Idempotency-Key for (a sandbox scan): only a refusal made before anything
 * was done is retried, since a second attempt after a lost answer or a 5xx could record it twice.
 */
export const refusedBeforeRetryable = (status: number) => status === 429;

/** Joining an operation under way: only answers that say "not yet" are retried, never its outcome. */
export const joinRetryable = (status: number, code: string | undefined) =>
  status === 429 || (status === 409 && code === 'idempotency_key_in_use') || (status === 503 && code === 'service_unavailable');

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exponential with full jitter: 0.5 s, 1 s, 2 s … at most 8 s. */
export const backoffMs = (attempt: number) => Math.random() * Math.min(8000, 500 * 2 ** attempt);

export function retryAfterSeconds(value: string | null): number | undefined {
  if (!value || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

/**
 * A value no HTTP header can carry (a line break, a character beyond Latin-1) makes fetch throw
 * before anything is sent: a mistake to say at once, not a network error to retry.
 */
export function assertSendable(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    try {
      new Headers([[name, value]]);
    } catch {
      // Not fetch's own message: it can quote the value, the API key included.
      const option = name === 'authorization' ? 'apiKey' : name === 'idempotency-key' ? 'idempotencyKey' : name;
      throw new TypeError(`ParcelShipping: the ${option} cannot be sent in an HTTP header (a control character, or one beyond Latin-1)`);
    }
  }
}
