import { CARRIER_REASON, type Address, type ScanStatus } from '../../domain/index.js';
import { decodeArray, isRecord, stringField } from '../decode.js';
import { createCarrierHttpClient } from '../http-client.js';
import { refusedCancel } from '../cancel-outcome.js';
import { rateFromCards } from '../rate-card-adapter.js';
import { lookUpUntil, markSend, startAttempt } from '../send-ledger.js';
import { oldestFirst } from '../scan-order.js';
import { CarrierError, type CarrierAdapter, type HttpAdapterOptions, type KnownPurchase, type PurchaseRequest, type Scan, type SendLedger } from '../types.js';
import { swiftpostDefinition } from './definition.js';

/** SwiftPost's event codes in our scan vocabulary. */
const EVENT_CODES: Record<string, ScanStatus> = {
  IN_TRANSIT: 'in_transit',
  OUT_FOR_DELIVERY: 'out_for_delivery',
  DELIVERED: 'delivered',
  EXCEPTION: 'exception',
};

interface Consignment extends KnownPurchase {
  consignmentNumber: string;
  bookedAt: string;
}

/**
 * How long SwiftPost may take to commit a booking it has received (its documented processing time is
 * under 8 s); a lost booking answer is settled over this window before anything else happens.
 */
export const SWIFTPOST_SETTLE_MS = 10_000;

/**
 * SwiftPost's consignment API: camelCase JSON, consignments addressed by their number, and no
 * idempotency support. A purchase is therefore always preceded by a lookup of our reference, so a
 * retried activity (after a lost answer, say) finds the first purchase instead of buying twice.
 *
 * A lookup only sees what the carrier has committed, and a booking whose answer was lost may still be
 * committing (fault 2). So after a lost or timed-out booking, and before any retried attempt books,
 * the adapter keeps looking our reference up over a settle window longer than the carrier's
 * processing time: a second booking is never sent while the first may still commit. Should two
 * consignments ever carry our reference, the later ones are cancelled.
 *
 * With the purchase's ledger of sends (`SendLedger`), each attempt marks its booking before sending
 * it and fences every earlier attempt off as it starts. An attempt whose worker was lost before it
 * booked then costs no settle window at all, and one that booked costs the window from its send,
 * not from when it was given up on.
 */
export function createSwiftpostHttpAdapter(options: HttpAdapterOptions): CarrierAdapter {
  const definition = swiftpostDefinition;
  const settleMs = options.settleMs ?? SWIFTPOST_SETTLE_MS;
  const http = createCarrierHttpClient({
    carrierCode: definition.code,
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    readError: readSwiftpostError,
    reasons: { ALREADY_IN_NETWORK: CARRIER_REASON.alreadyScanned, CONSIGNMENT_NOT_FOUND: CARRIER_REASON.notFound },
  });

  function decodeConsignment(value: unknown): Consignment | undefined {
    if (!isRecord(value)) return undefined;
    const consignmentNumber = stringField(value, 'consignmentNumber');
    const reference = stringField(value, 'customerReference');
    const serviceCode = stringField(value, 'productCode');
    const state = stringField(value, 'state');
    if (!consignmentNumber || !definition.isTrackingNumber(consignmentNumber) || !reference || !serviceCode) return undefined;
    if (state !== 'BOOKED' && state !== 'CANCELLED') return undefined;
    const bookedAt = stringField(value, 'bookedAt') ?? '';
    return { consignmentNumber, reference, trackingNumber: consignmentNumber, serviceCode, cancelled: state === 'CANCELLED', bookedAt };
  }

  async function consignmentsFor(reference: string): Promise<Consignment[]> {
    const found = await http.call({
      operation: 'lookup',
      method: 'GET',
      path: '/consignments',
      query: { customerReference: reference },
      decode: (body) => (isRecord(body) ? decodeArray(body.consignments, decodeConsignment) : undefined),
    });
    return found.filter((c) => c.reference === reference);
  }

  /**
   * Looks our reference up until something turns up or the settle window of a booking sent at
   * `sentAt` has passed: SwiftPost commits within its processing time of receiving it, however long
   * its answer then took to be given up on.
   */
  async function settle(reference: string, sentAt: number): Promise<Consignment[]> {
    const pause = Math.max(100, Math.min(1_000, Math.floor(settleMs / 10)));
    return lookUpUntil(() => consignmentsFor(reference), (found) => found.length > 0, sentAt + settleMs, pause);
  }

  /** Keeps the first live consignment under our reference and cancels any other (fault 2). */
  async function keepOne(request: PurchaseRequest, consignments: Consignment[]): Promise<KnownPurchase> {
    const ordered = [...consignments].sort((a, b) => a.bookedAt.localeCompare(b.bookedAt) || a.consignmentNumber.localeCompare(b.consignmentNumber));
    const kept = ordered.find((c) => !c.cancelled) ?? ordered[0];
    for (const extra of ordered.filter((c) => c !== kept && !c.cancelled)) await cancelConsignment(extra);
    if (kept.serviceCode !== request.serviceCode) {
      throw new CarrierError('definitive', `reference ${request.reference} was already used for ${kept.serviceCode}`, {
        carrierCode: definition.code,
      });
    }
    return toPurchase(kept);
  }

  async function cancelConsignment(consignment: Consignment): Promise<void> {
    await http.call({
      operation: 'cancel',
      method: 'POST',
      path: `/consignments/${encodeURIComponent(consignment.consignmentNumber)}/cancel`,
      decode: (body) => (isRecord(body) ? decodeConsignment(body.consignment) : undefined),
    });
  }

  /**
   * When an earlier attempt whose outcome is unknown may have sent its booking, for its settle
   * window; null when none can have sent. Without a ledger: when the workflow gave it up (or now).
   */
  async function earlierSendAt(request: PurchaseRequest, sends: SendLedger | undefined): Promise<number | null> {
    if (sends) return startAttempt(definition.code, request, sends);
    if (!request.earlierAttempt) return null;
    const givenAt = request.earlierAttemptAt ? Date.parse(request.earlierAttemptAt) : Number.NaN;
    return Number.isFinite(givenAt) ? Math.min(givenAt, Date.now()) : Date.now();
  }

  async function buyOnce(request: PurchaseRequest, sends?: SendLedger): Promise<KnownPurchase> {
    const earlierAt = await earlierSendAt(request, sends);
    let existing = await consignmentsFor(request.reference);
    // An earlier attempt's booking may still be committing: wait it out before booking again.
    if (existing.length === 0 && earlierAt !== null) existing = await settle(request.reference, earlierAt);
    if (existing.length > 0) return keepOne(request, existing);
    if (sends) await markSend(definition.code, request.reference, sends);
    let booked: Consignment;
    const sentAt = Date.now();
    try {
      booked = await book(request);
    } catch (err) {
      if (!(err instanceof CarrierError) || err.kind !== 'ambiguous') throw err;
      const settled = await settle(request.reference, sentAt);
      if (settled.length > 0) return keepOne(request, settled);
      // Past the settle window with nothing under our reference: that booking can no longer commit.
      throw new CarrierError('retryable', `${err.message}; nothing was booked within ${settleMs} ms, so it is safe to book again`, {
        carrierCode: definition.code,
      });
    }
    return toPurchase(booked);
  }

  return {
    definition,

    async rate(request) {
      return rateFromCards(definition, request);
    },

    // SwiftPost takes our whole address: nothing of ours is wider than it allows.
    checkAddress: () => [],

    async buy(request, sends) {
      // SwiftPost sends no label file and no bill: the platform draws the label and charges its rate card.
      return { ...(await buyOnce(request, sends)), label: null, billed: null };
    },

    async findPurchase(reference) {
      const consignments = await consignmentsFor(reference);
      const ordered = [...consignments].sort((a, b) => a.bookedAt.localeCompare(b.bookedAt));
      const first = ordered.find((c) => !c.cancelled) ?? ordered[0];
      return first ? toPurchase(first) : null;
    },

    async cancel({ reference }) {
      const consignments = await consignmentsFor(reference);
      if (consignments.length === 0) {
        throw new CarrierError('definitive', `no consignment with reference ${reference}`, {
          carrierCode: definition.code,
          reason: CARRIER_REASON.notFound,
        });
      }
      // Cancelling a cancelled consignment is harmless, so a retried cancel simply skips it.
      try {
        for (const consignment of consignments.filter((c) => !c.cancelled)) await cancelConsignment(consignment);
      } catch (error) {
        return refusedCancel(error);
      }
      return { kind: 'cancelled' };
    },

    async scans(trackingNumber) {
      const events = await http.call({
        operation: 'track',
        method: 'GET',
        path: `/consignments/${encodeURIComponent(trackingNumber)}/events`,
        decode: (body) => (isRecord(body) ? decodeArray(body.events, decodeEvent) : undefined),
      });
      // SwiftPost lists newest first; reversing first keeps same-instant events in carrier order.
      return oldestFirst(events.filter((e): e is Scan => e !== null).reverse());
    },
  };

  function book(request: PurchaseRequest): Promise<Consignment> {
    return http.call({
      operation: 'buy',
      method: 'POST',
      path: '/consignments',
      body: {
        productCode: request.serviceCode,
        customerReference: request.reference,
        sender: toSwiftpostAddress(request.from),
        recipient: toSwiftpostAddress(request.to),
        item: {
          weightGrams: request.parcel.weight_g,
          lengthMm: request.parcel.length_mm,
          widthMm: request.parcel.width_mm,
          heightMm: request.parcel.height_mm,
        },
      },
      decode: (body) => (isRecord(body) ? decodeConsignment(body.consignment) : undefined),
    });
  }
}

function toPurchase(c: Consignment): KnownPurchase {
  return { reference: c.reference, trackingNumber: c.trackingNumber, serviceCode: c.serviceCode, cancelled: c.cancelled };
}

function toSwiftpostAddress(address: Address) {
  return {
    contactName: address.name,
    addressLine1: address.line1,
    ...(address.line2 ? { addressLine2: address.line2 } : {}),
    town: address.city,
    postcode: address.postcode,
    countryCode: address.country,
  };
}

/** An event; null for event codes outside our vocabulary (e.g. a depot note), which we skip. */
function decodeEvent(value: unknown): Scan | null | undefined {
  if (!isRecord(value)) return undefined;
  const id = stringField(value, 'eventId');
  const occurredAt = stringField(value, 'eventTime');
  const code = stringField(value, 'eventCode');
  if (!id || !occurredAt || Number.isNaN(Date.parse(occurredAt)) || !code) return undefined;
  const status = EVENT_CODES[code];
  if (!status) return null;
  const depot = isRecord(value.depot) ? value.depot : null;
  return {
    id,
    occurredAt: new Date(occurredAt).toISOString(),
    status,
    carrierCode: code,
    description: stringField(value, 'eventDescription') ?? '',
    location: depot && {
      city: stringField(depot, 'town') ?? '',
      postcode: stringField(depot, 'postcode') ?? '',
      country: stringField(depot, 'countryCode') ?? '',
    },
  };
}

/** SwiftPost errors: `{"errors": [{"errorCode", "detail"}]}`. */
function readSwiftpostError(body: unknown): { code?: string; message?: string } {
  const first = isRecord(body) && Array.isArray(body.errors) ? body.errors[0] : undefined;
  if (!isRecord(first)) return {};
  return { code: stringField(first, 'errorCode'), message: stringField(first, 'detail') };
}
