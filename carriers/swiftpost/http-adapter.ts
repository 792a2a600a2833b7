import type { Address, ScanStatus } from '../../domain/index.js';
import { decodeArray, isRecord, stringField } from '../decode.js';
import { createCarrierHttpClient } from '../http-client.js';
import { oldestFirst } from '../scan-order.js';
import { CarrierError, type CarrierAdapter, type HttpAdapterOptions, type Purchase, type Scan } from '../types.js';
import { swiftpostDefinition } from './definition.js';

/** SwiftPost's event codes in our scan vocabulary. */
const EVENT_CODES: Record<string, ScanStatus> = {
  IN_TRANSIT: 'in_transit',
  OUT_FOR_DELIVERY: 'out_for_delivery',
  DELIVERED: 'delivered',
  EXCEPTION: 'exception',
};

interface Consignment extends Purchase {
  consignmentNumber: string;
}

/**
 * SwiftPost's consignment API: camelCase JSON, consignments addressed by their number, and no
 * idempotency support. A purchase is therefore always preceded by a lookup of our reference, so a
 * retried activity (after a lost answer, say) finds the first purchase instead of buying twice.
 */
export function createSwiftpostHttpAdapter(options: HttpAdapterOptions): CarrierAdapter {
  const definition = swiftpostDefinition;
  const http = createCarrierHttpClient({
    carrierCode: definition.code,
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    readError: readSwiftpostError,
    reasons: { ALREADY_IN_NETWORK: 'already_scanned', CONSIGNMENT_NOT_FOUND: 'not_found' },
  });

  function decodeConsignment(value: unknown): Consignment | undefined {
    if (!isRecord(value)) return undefined;
    const consignmentNumber = stringField(value, 'consignmentNumber');
    const reference = stringField(value, 'customerReference');
    const serviceCode = stringField(value, 'productCode');
    const state = stringField(value, 'state');
    if (!consignmentNumber || !definition.isTrackingNumber(consignmentNumber) || !reference || !serviceCode) return undefined;
    if (state !== 'BOOKED' && state !== 'CANCELLED') return undefined;
    return { consignmentNumber, reference, trackingNumber: consignmentNumber, serviceCode, cancelled: state === 'CANCELLED' };
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

  return {
    definition,

    async buy(request) {
      const [existing] = await consignmentsFor(request.reference);
      if (existing) {
        if (existing.serviceCode !== request.serviceCode) {
          throw new CarrierError('definitive', `reference ${request.reference} was already used for ${existing.serviceCode}`, {
            carrierCode: definition.code,
          });
        }
        return toPurchase(existing);
      }
      const booked = await http.call({
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
      return toPurchase(booked);
    },

    async findPurchase(reference) {
      const [first] = await consignmentsFor(reference);
      return first ? toPurchase(first) : null;
    },

    async cancel(reference) {
      const consignments = await consignmentsFor(reference);
      if (consignments.length === 0) {
        throw new CarrierError('definitive', `no consignment with reference ${reference}`, {
          carrierCode: definition.code,
          reason: 'not_found',
        });
      }
      // Cancelling a cancelled consignment is harmless, so a retried cancel simply skips it.
      for (const consignment of consignments.filter((c) => !c.cancelled)) {
        await http.call({
          operation: 'cancel',
          method: 'POST',
          path: `/consignments/${encodeURIComponent(consignment.consignmentNumber)}/cancel`,
          decode: (body) => (isRecord(body) ? decodeConsignment(body.consignment) : undefined),
        });
      }
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
}

function toPurchase(c: Consignment): Purchase {
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
