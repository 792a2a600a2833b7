import { networkErrorCode } from './http.js';

export interface Limits {
  concurrency: number;
  /** Stop issuing once this many requests were sent… */
  requests: number;
  /** …or once this much time has passed; requests in flight then still finish. */
  timeMs: number;
  /** Ctrl-C: stop issuing and report what was measured. */
  signal?: AbortSignal;
}

export interface LoadResult {
  /** Every request that got an HTTP answer, in milliseconds from sending to the last body byte. */
  latencies: number[];
  /** Answers by status code, plus `network:<code>` for requests that got none. */
  outcomes: Map<string, number>;
  requests: number;
  wallMs: number;
  stoppedBy: 'requests' | 'time' | 'interrupted';
}

/**
 * A closed-loop load generator: `concurrency` workers, each sending its next request only when
 * its previous one has answered, so the offered load adapts to the server instead of piling up.
 * `send(i)` sends request number i and resolves to the HTTP status.
 */
export async function closedLoop(limits: Limits, send: (i: number) => Promise<number>): Promise<LoadResult> {
  const latencies: number[] = [];
  const outcomes = new Map<string, number>();
  const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  const started = performance.now();
  const deadline = started + limits.timeMs;
  let next = 0;
  let stoppedBy: LoadResult['stoppedBy'] = 'requests';

  const mayIssue = () => {
    if (limits.signal?.aborted) {
      stoppedBy = 'interrupted';
      return false;
    }
    if (next >= limits.requests) return false;
    if (performance.now() >= deadline) {
      stoppedBy = 'time';
      return false;
    }
    return true;
  };

  const worker = async () => {
    while (mayIssue()) {
      const i = next++;
      const t0 = performance.now();
      try {
        const status = await send(i);
        latencies.push(performance.now() - t0);
        count(String(status));
      } catch (err) {
        count(`network:${networkErrorCode(err)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limits.concurrency, limits.requests) }, worker));
  return { latencies, outcomes, requests: next, wallMs: performance.now() - started, stoppedBy };
}
