import type { ScanStatus } from '../../domain/index.js';
import { SimHttpError, type SimApi, type SimReply, type SimRequest } from './sim-types.js';
import type { SimScan, SimState } from './state.js';
import { jsonObject, positiveInteger } from './validate.js';

/**
 * The tracking bench's parcels (`npm run bench -- tracking`): labels made without a purchase request,
 * each walking through a realistic week on a clock `scale` times faster than the wall's, so that a
 * week passes in minutes. `POST /_sim/parcels` `{carrier, count, scale, seed?, start_ms?, spread?}`
 * answers 201 `{tracking_numbers, last_scan_at}`; each carrier then reports the scans whose time has
 * come.
 *
 * With `spread: true` the parcels are not all new: each is somewhere in its week, as the parcels a
 * merchant has in flight at any moment are (a parcel's age is drawn evenly over its own life, so none
 * is delivered yet). The answer then also gives each parcel's scans so far (`parcels`), so that the
 * bench can start its tracking where a workflow that had followed it all along would be.
 */
export function createParcels(state: SimState, apis: readonly SimApi[], req: SimRequest): SimReply {
  const body = jsonObject(req);
  const carrier = body.carrier;
  const api = apis.find((a) => a.code === carrier && a.createParcel);
  if (!api) throw new SimHttpError(400, 'invalid_request', `carrier must be one of ${apis.filter((a) => a.createParcel).map((a) => a.code).join(', ')}.`);
  const count = positiveInteger(body, 'count');
  if (count > 10_000) throw new SimHttpError(400, 'invalid_request', 'count must be at most 10000 a request.');
  const scale = typeof body.scale === 'number' && body.scale >= 1 ? body.scale : 1;
  const now = typeof body.start_ms === 'number' ? body.start_ms : Date.now();
  if (body.spread !== undefined && typeof body.spread !== 'boolean') throw new SimHttpError(400, 'invalid_request', 'spread must be a boolean.');
  const spread = body.spread === true;
  const rng = mulberry32(typeof body.seed === 'number' ? body.seed : 1);
  const numbers: string[] = [];
  const parcels: Array<{ tracking_number: string; created_at: string; scans: Array<{ id: string; status: ScanStatus; occurred_at: string }> }> = [];
  let last = now;
  for (let i = 0; i < count; i++) {
    const week = weekOf(rng);
    // Spread: made this many parcel hours ago, somewhere before its delivery.
    const ageHours = spread ? rng() * week[week.length - 1].hour : 0;
    const start = now - (ageHours * 3_600_000) / scale;
    const trackingNumber = api.createParcel!(start, `bench-${state.newId('prc')}`);
    const scans = week.map(
      (step, n): SimScan => ({
        id: `${trackingNumber}-w${n}`,
        carrier: api.code,
        trackingNumber,
        status: step.status,
        description: step.description,
        location: { city: step.city, postcode: '', country: 'GB' },
        occurredAt: new Date(start + (step.hour * 3_600_000) / scale).toISOString(),
      }),
    );
    state.itineraries.set(trackingNumber, scans);
    last = Math.max(last, Date.parse(scans[scans.length - 1].occurredAt));
    numbers.push(trackingNumber);
    if (spread) {
      const past = scans.filter((s) => Date.parse(s.occurredAt) <= now);
      parcels.push({
        tracking_number: trackingNumber,
        created_at: new Date(start).toISOString(),
        scans: past.map((s) => ({ id: s.id, status: s.status, occurred_at: s.occurredAt })),
      });
    }
  }
  return { status: 201, body: { tracking_numbers: numbers, last_scan_at: new Date(last).toISOString(), ...(spread ? { parcels } : {}) } };
}

interface Step {
  /** Parcel hours after the label was made. */
  hour: number;
  status: ScanStatus;
  description: string;
  city: string;
}

const HUBS = ['Birmingham', 'Coventry', 'Daventry', 'Doncaster', 'Warrington', 'Leeds'];

/**
 * A week as parcels live it: collected 18–30 h after the label was made; scanned through hubs every
 * 8–16 h for 2–4 days; out for delivery, and delivered 2–8 h later; one parcel in twenty finds
 * nobody in, is back in the network and out again the next day.
 */
export function weekOf(rng: () => number): Step[] {
  const between = (a: number, b: number) => a + (b - a) * rng();
  const steps: Step[] = [];
  let hour = between(18, 30);
  steps.push({ hour, status: 'in_transit', description: 'Collected by the courier', city: 'London' });
  const transitEnd = hour + between(48, 96);
  for (let hub = 0; (hour += between(8, 16)) < transitEnd; hub++) {
    steps.push({ hour, status: 'in_transit', description: hub % 2 ? 'Departed facility' : 'Arrived at facility', city: HUBS[hub % HUBS.length] });
  }
  hour = transitEnd;
  steps.push({ hour, status: 'out_for_delivery', description: 'Out for delivery', city: 'Leeds' });
  if (rng() < 0.05) {
    steps.push({ hour: (hour += between(3, 6)), status: 'exception', description: 'Delivery attempted: nobody in', city: 'Leeds' });
    steps.push({ hour: (hour += between(18, 22)), status: 'out_for_delivery', description: 'Out for delivery', city: 'Leeds' });
  }
  steps.push({ hour: hour + between(2, 8), status: 'delivered', description: 'Delivered', city: 'Leeds' });
  return steps;
}

/** A small seeded generator, so that one seed makes the same week every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
