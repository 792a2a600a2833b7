import { request } from 'undici';
import { UPS_ERROR } from './rating.js';
import type { UpsBooks } from './shipping.js';
import { scansAt, type SimExtraScan, type SimPackage } from './state.js';

/**
 * UPS Track Alert as the simulator plays it (UPS's `UPSTrackAlert.yaml`, v2):
 * `POST /api/track/v2/subscription/{type}/package` subscribes up to 100 numbers for 14 days, and
 * each event of a subscribed package that happens afterwards ("Track Alert does not retain any
 * history") is pushed to the account's webhook as a `TrackingEvent`, signed with a bearer token the
 * simulator takes from the webhook's token URL with client credentials (`clientOauth2`), with the
 * client id as `x-api-key` and the User-Agent `UPSPubSubTrackingService`.
 */

/** The account's webhook, as "Manage Webhook Credentials" registers it with UPS. */
export interface TrackAlertWebhook {
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

const LIFETIME_MS = 14 * 24 * 3_600_000;
const PER_CALL = 100;
const TRACKING_NUMBER = /(^1Z[0-9A-Z]{16}$)|(^1R[0-9A-Z]{14}$)|(^1R[0-9A-Z]{26}$)/;
/** Pushes in flight at once, and tries per event (1, 2, 4 and 8 s apart) before it is dropped. */
const CONCURRENCY = 16;
const TRIES = 5;

interface Subscription {
  since: number;
  until: number;
  /** Events pushed (or being pushed), by time, type and code. */
  sent: Set<string>;
  /** The times this package has in the heap of due events, so each is there once. */
  queued: Set<number>;
}

export type TrackAlert = ReturnType<typeof createTrackAlert>;

export function createTrackAlert(books: UpsBooks, webhook?: TrackAlertWebhook) {
  let destination = webhook;
  const subscriptions = new Map<string, Subscription>();
  /** Times at which a subscribed package has an event due, soonest first (a small binary heap). */
  const due: Array<{ at: number; trackingNumber: string }> = [];
  let timer: NodeJS.Timeout | undefined;
  let armedFor = Infinity;
  const outbox: Array<{ body: Record<string, unknown>; tries: number }> = [];
  let inFlight = 0;
  let token: { value: string; until: number } | undefined;
  const stats = { subscribed: 0, pushed: 0, failed: 0, dropped: 0 };

  function subscribe(body: unknown): [number, unknown] {
    const b = (typeof body === 'object' && body !== null ? body : {}) as { locale?: unknown; trackingNumberList?: unknown };
    if (b.locale === undefined) return [400, UPS_ERROR('VSS300', 'Locale is required. The Subscription request has been rejected.')];
    if (typeof b.locale !== 'string' || !/^[a-z]{2}_[A-Z]{2}$/.test(b.locale)) return [400, UPS_ERROR('VSS310', 'Please enter a valid locale. The Subscription request has been rejected')];
    const list = b.trackingNumberList;
    if (!Array.isArray(list) || !list.length) return [400, UPS_ERROR('VSS200', 'Tracking Number List is required. The Subscription request has been rejected.')];
    if (list.length > PER_CALL) return [400, UPS_ERROR('VSS220', 'You have submitted over 100 tracking numbers which is not allowed.')];
    const valid = list.filter((n): n is string => typeof n === 'string' && TRACKING_NUMBER.test(n));
    const invalid = list.filter((n) => !valid.includes(n as string)).map(String);
    if (!valid.length) {
      return [400, { invalidTrackingNumbers: invalid, ...UPS_ERROR('VSS210', 'The Subscription request should have at least one valid tracking number.') }];
    }
    const now = books.clock();
    for (const n of valid) {
      // A number subscribed again keeps what was pushed: its events are not sent twice.
      const before = subscriptions.get(n);
      subscriptions.set(n, { since: before?.since ?? now, until: now + LIFETIME_MS, sent: before?.sent ?? new Set(), queued: before?.queued ?? new Set() });
      stats.subscribed++;
      plan(n);
    }
    return [200, invalid.length ? { validTrackingNumbers: valid, invalidTrackingNumbers: invalid } : { validTrackingNumbers: valid }];
  }

  /** Pushes the package's events that are due and not yet sent, and arms a timer for the next one. */
  function plan(trackingNumber: string): void {
    const sub = subscriptions.get(trackingNumber);
    const pkg = books.packages.get(trackingNumber);
    if (!sub || !pkg) return;
    const now = books.clock();
    for (const event of scansAt(pkg, books.schedule, Infinity, books.extraScans(trackingNumber))) {
      const key = `${event.at}:${event.type}:${event.code}`;
      if (event.at < sub.since || event.at > sub.until || sub.sent.has(key)) continue;
      if (event.at <= now) {
        sub.sent.add(key);
        outbox.push({ body: eventBody(pkg, event), tries: 0 });
      } else if (!sub.queued.has(event.at)) {
        sub.queued.add(event.at);
        heapPush({ at: event.at, trackingNumber });
      }
    }
    drain();
    arm();
  }

  function arm(): void {
    const next = due[0]?.at ?? Infinity;
    if (next >= armedFor) return;
    clearTimeout(timer);
    armedFor = next;
    if (next === Infinity) return;
    timer = setTimeout(fire, Math.max(0, next - books.clock()));
    timer.unref();
  }

  function fire(): void {
    armedFor = Infinity;
    const now = books.clock();
    const numbers = new Set<string>();
    while (due.length && due[0].at <= now) {
      const { at, trackingNumber } = heapPop()!;
      subscriptions.get(trackingNumber)?.queued.delete(at);
      numbers.add(trackingNumber);
    }
    for (const n of numbers) plan(n);
    arm();
  }

  function drain(): void {
    while (destination && inFlight < CONCURRENCY && outbox.length) {
      const item = outbox.shift()!;
      inFlight++;
      void deliver(destination, item).finally(() => {
        inFlight--;
        drain();
      });
    }
  }

  async function deliver(to: TrackAlertWebhook, item: { body: Record<string, unknown>; tries: number }): Promise<void> {
    item.tries++;
    try {
      const bearer = await tokenFor(to);
      const answer = await request(to.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'x-api-key': to.clientId, 'user-agent': 'UPSPubSubTrackingService', 'content-type': 'application/json' },
        body: JSON.stringify(item.body),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      await answer.body.dump();
      if (answer.statusCode === 401) token = undefined;
      if (answer.statusCode >= 200 && answer.statusCode < 300) {
        stats.pushed++;
        return;
      }
      stats.failed++;
    } catch {
      stats.failed++;
    }
    if (item.tries >= TRIES) {
      stats.dropped++;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000 * 2 ** (item.tries - 1)).unref());
    outbox.push(item);
  }

  async function tokenFor(to: TrackAlertWebhook): Promise<string> {
    if (token && Date.now() < token.until) return token.value;
    const basic = Buffer.from(`${to.clientId}:${to.clientSecret}`).toString('base64');
    const answer = await request(to.tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const body = (await answer.body.json()) as { access_token?: string; expires_in?: number };
    if (answer.statusCode !== 200 || !body.access_token) throw new Error(`token endpoint answered ${answer.statusCode}`);
    token = { value: body.access_token, until: Date.now() + Math.max(0, (body.expires_in ?? 60) - 30) * 1000 };
    return token.value;
  }

  function heapPush(entry: { at: number; trackingNumber: string }): void {
    due.push(entry);
    for (let i = due.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (due[parent].at <= due[i].at) break;
      [due[parent], due[i]] = [due[i], due[parent]];
      i = parent;
    }
  }

  function heapPop(): { at: number; trackingNumber: string } | undefined {
    const top = due[0];
    const last = due.pop();
    if (!due.length || !last) return top;
    due[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < due.length && due[l].at < due[m].at) m = l;
      if (r < due.length && due[r].at < due[m].at) m = r;
      if (m === i) break;
      [due[m], due[i]] = [due[i], due[m]];
      i = m;
    }
    return top;
  }

  return {
    subscribe,
    /** A scan was added to the package: push it if it is subscribed. */
    notify: plan,
    /** Registers (or removes) the account's webhook; events waiting for one are then sent. */
    setWebhook(next: TrackAlertWebhook | undefined) {
      destination = next;
      token = undefined;
      drain();
    },
    isSubscribed: (trackingNumber: string) => (subscriptions.get(trackingNumber)?.until ?? 0) > books.clock(),
    stats: () => ({ ...stats, waiting: outbox.length, inFlight }),
    close() {
      clearTimeout(timer);
      destination = undefined;
    },
  };
}

/** A scan as Track Alert's TrackingEvent: UTC times (the simulator's clock), the place where it was. */
function eventBody(pkg: SimPackage, event: SimExtraScan): Record<string, unknown> {
  const iso = new Date(event.at).toISOString();
  const date = iso.slice(0, 10).replace(/-/g, '');
  const time = iso.slice(11, 19).replace(/:/g, '');
  const place = { ...(event.city ? { city: event.city } : {}), ...(event.postalCode ? { postalCode: event.postalCode } : {}), country: pkg.originCountry };
  return {
    trackingNumber: pkg.trackingNumber,
    localActivityDate: date,
    localActivityTime: time,
    gmtActivityDate: date,
    gmtActivityTime: time,
    gmtOffset: '+00.00',
    activityLocation: place,
    activityStatus: { type: event.type, code: event.code, description: event.description },
    ...(event.type === 'D' ? { actualDeliveryDate: date, actualDeliveryTime: time } : {}),
  };
}
