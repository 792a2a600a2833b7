import { request } from 'undici';

/** The carrier simulator's control API, as tests use it. */
export function simControl(simUrl: string) {
  async function send(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
    const res = await request(`${simUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) throw new Error(`simulator ${method} ${path}: ${res.statusCode} ${text}`);
    return text ? JSON.parse(text) : null;
  }
  return {
    fault: (f: {
      carrier: string;
      operation: string;
      mode: string;
      status?: number;
      times?: number;
      match?: string;
      delay_ms?: number;
      retry_after?: number;
      /** The carrier's own error code of an `error` answer. */
      code?: string;
    }) => send('POST', '/_sim/faults', f),
    /** The faults still armed (a fault is gone once its `times` are used up). */
    faults: async (match?: string) =>
      ((await send('GET', '/_sim/faults')).data as Array<{ match?: string; times: number }>).filter((f) => match === undefined || f.match === match),
    clearFaults: (match?: string) => send('DELETE', `/_sim/faults${match ? `?match=${encodeURIComponent(match)}` : ''}`),
    purchases: async (reference: string) =>
      (await send('GET', `/_sim/purchases?reference=${encodeURIComponent(reference)}`)).data as Array<{
        carrier: string;
        reference: string;
        tracking_number: string;
        cancelled: boolean;
      }>,
    scan: (trackingNumber: string, status: string, description?: string) =>
      send('POST', '/_sim/scans', { tracking_number: trackingNumber, status, description }),
    cardCharges: async (reference: string) =>
      (await send('GET', `/_sim/card-charges?reference=${encodeURIComponent(reference)}`)).data as Array<{ id: string; status: string; amount: number }>,
    stats: () => send('GET', '/_sim/stats'),
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 30_000, what = 'condition'): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
