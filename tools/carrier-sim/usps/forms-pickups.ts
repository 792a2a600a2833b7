import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { CarrierPickup, ScanForm } from '../../../carriers/usps/schemas/index.js';
import { manifestPdf } from '../form-files.js';
import { header } from './http-io.js';
import type { UspsDesk, UspsReply } from './desk.js';

/**
 * The USPS simulator's SCAN Forms and Carrier Pickup answers, as `scan-forms.yaml` and
 * `carrier-pickup.yaml` say: a form links labels not yet on one (PS Form 5630 as a PDF in the vendor
 * JSON answer); a pickup is confirmed with a number and an ETag, and a DELETE needs that ETag in
 * `If-Match`. Every request is checked against our schemas first.
 */

interface Booking {
  confirmationNumber: string;
  etag: string;
  cancelled: boolean;
  request: Record<string, unknown>;
}

interface FormBooks {
  /** The manifest number each tracking number is on. */
  formOf: Map<string, string>;
  pickups: Map<string, Booking>;
  serial: number;
}

const books = new WeakMap<UspsDesk, FormBooks>();
function booksOf(desk: UspsDesk): FormBooks {
  let b = books.get(desk);
  if (!b) books.set(desk, (b = { formOf: new Map(), pickups: new Map(), serial: 0 }));
  return b;
}

export async function scanForm(desk: UspsDesk, headers: IncomingHttpHeaders, body: unknown): Promise<UspsReply> {
  // The form of labels (by tracking number), the one of the document's shapes that we send.
  const b = body as ScanForm.Request & { shipment: ScanForm.LabelShipment };
  const f = booksOf(desk);
  for (const t of b.shipment.trackingNumbers) {
    const label = desk.books.byTracking(t);
    if (!label || label.status !== 'active') return desk.error(400, `Label ${t} is not eligible for a SCAN form`, 'trackingNumbers');
    if (f.formOf.has(t)) return desk.error(400, `Label ${t} has already been added to a SCAN form`, 'trackingNumbers');
  }
  f.serial++;
  const manifestNumber = `9475${String(desk.now()).slice(-8)}${String(f.serial).padStart(10, '0')}`;
  for (const t of b.shipment.trackingNumbers) f.formOf.set(t, manifestNumber);
  const a = b.fromAddress;
  const pdf = await manifestPdf({
    title: 'PS FORM 5630 - SHIPMENT CONFIRMATION ACCEPTANCE NOTICE',
    number: manifestNumber,
    from: [a.firm ?? `${a.firstName ?? ''} ${a.lastName ?? ''}`.trim(), a.streetAddress, `${a.city} ${a.state} ${a.ZIPCode}`].map((l) => (l ?? '').toUpperCase()),
    trackingNumbers: b.shipment.trackingNumbers,
  });
  const { shipment, ...metadata } = b;
  const answer = { ...metadata, shipment, manifestNumber, trackingNumbers: b.shipment.trackingNumbers, SCANFormImage: Buffer.from(pdf).toString('base64') };
  if (!(headers.accept ?? '').includes('application/vnd.usps.labels+json')) {
    // The default answer is multipart; this simulator serves the vendor JSON only and says so.
    return desk.error(400, 'This simulator answers SCAN forms with Accept: application/vnd.usps.labels+json only', 'Accept');
  }
  return desk.labelsReply(200, answer);
}

export function schedulePickup(desk: UspsDesk, body: unknown): UspsReply {
  const b = body as CarrierPickup.Request;
  if (b.pickupLocation.packageLocation === 'OTHER' && !b.pickupLocation.specialInstructions) {
    return desk.error(400, 'Invalid carrier pickup request: /pickupLocation/specialInstructions is required when packageLocation is OTHER');
  }
  // "You can schedule pickups Monday - Saturday": a Sunday is refused unless the next day is asked for.
  const day = new Date(`${b.pickupDate}T12:00:00Z`).getUTCDay();
  const today = new Date(desk.now()).toISOString().slice(0, 10);
  if (b.pickupDate < today) return desk.error(400, 'The pickup date must be today or later', 'pickupDate');
  if (day === 0 && !b.nextAvailablePickup) return desk.error(400, 'Carrier pickup is not available on Sundays', 'pickupDate');
  const f = booksOf(desk);
  f.serial++;
  const confirmationNumber = `WTC${String(f.serial).padStart(9, '0')}`;
  const booking: Booking = { confirmationNumber, etag: newEtag(), cancelled: false, request: b as unknown as Record<string, unknown> };
  f.pickups.set(confirmationNumber, booking);
  return desk.reply(200, { confirmationNumber, pickupDate: b.pickupDate, carrierPickupRequest: b }, { etag: booking.etag });
}

export function readPickup(desk: UspsDesk, confirmationNumber: string): UspsReply {
  const booking = booksOf(desk).pickups.get(confirmationNumber);
  if (!booking || booking.cancelled) return desk.error(404, `No carrier pickup ${confirmationNumber}`, 'confirmationNumber');
  // "The ETag is returned in the GET operation and is good for one hour or until it is used."
  booking.etag = newEtag();
  // The document answers a list of confirmations.
  return desk.reply(200, [{ confirmationNumber, pickupDate: booking.request.pickupDate, carrierPickupRequest: booking.request }], { etag: booking.etag });
}

export function cancelPickup(desk: UspsDesk, headers: IncomingHttpHeaders, confirmationNumber: string): UspsReply {
  const booking = booksOf(desk).pickups.get(confirmationNumber);
  if (!booking || booking.cancelled) return desk.error(400, `Carrier pickup ${confirmationNumber} cannot be cancelled`, 'confirmationNumber');
  const ifMatch = header(headers, 'if-match');
  if (!ifMatch || ifMatch !== booking.etag) return desk.error(400, 'If-Match does not match the current ETag of the pickup', 'If-Match');
  booking.cancelled = true;
  booking.etag = newEtag();
  return { status: 200, headers: {} };
}

/** Whether a pickup is booked and not cancelled (tests read it). */
export function pickupState(desk: UspsDesk, confirmationNumber: string): 'scheduled' | 'cancelled' | undefined {
  const booking = booksOf(desk).pickups.get(confirmationNumber);
  return booking && (booking.cancelled ? 'cancelled' : 'scheduled');
}

function newEtag(): string {
  return `"${randomBytes(8).toString('hex')}"`;
}
