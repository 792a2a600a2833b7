import { decodeArray, isRecord, isScanStatus, stringField } from '../decode.js';
import { createCarrierHttpClient } from '../http-client.js';
import { rateFromCards } from '../rate-card-adapter.js';
import { oldestFirst } from '../scan-order.js';
import { refusedCancel } from '../cancel-outcome.js';
import { CarrierError, type BookedPickup, type CarrierAdapter, type HttpAdapterOptions, type KnownPurchase, type Scan, type ScanForm } from '../types.js';
import { acmeDefinition } from './definition.js';
import { CARRIER_REASON } from '../../domain/index.js';

/**
 * Acme Express API v2: Stripe-like JSON, labels keyed by our `reference`, and an `Idempotency-Key`
 * header on purchases, so a retried buy with the same key returns the same label.
 */
export function createAcmeHttpAdapter(options: HttpAdapterOptions): CarrierAdapter {
  const definition = acmeDefinition;
  const http = createCarrierHttpClient({
    carrierCode: definition.code,
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    reasons: { already_scanned: CARRIER_REASON.alreadyScanned, label_not_found: CARRIER_REASON.notFound, tracking_number_not_found: CARRIER_REASON.notFound },
  });

  function decodeLabel(value: unknown): KnownPurchase | undefined {
    if (!isRecord(value)) return undefined;
    const reference = stringField(value, 'reference');
    const trackingNumber = stringField(value, 'tracking_number');
    const serviceCode = stringField(value, 'service');
    const status = stringField(value, 'status');
    if (!reference || !serviceCode || !trackingNumber || !definition.isTrackingNumber(trackingNumber)) return undefined;
    if (status !== 'created' && status !== 'voided') return undefined;
    return { reference, trackingNumber, serviceCode, cancelled: status === 'voided' };
  }

  return {
    definition,

    async rate(request) {
      return rateFromCards(definition, request);
    },

    // Acme's API takes our whole address: nothing of ours is wider than it allows.
    checkAddress: () => [],

    async buy(request) {
      const purchase = await http.call({
        operation: 'buy',
        method: 'POST',
        path: '/labels',
        // Our reference is the same on every retry of the step, so it is the natural key.
        headers: { 'idempotency-key': request.reference },
        body: {
          service: request.serviceCode,
          reference: request.reference,
          from: request.from,
          to: request.to,
          parcel: request.parcel,
          // Acme takes our terms as they are: customs on international labels, options, returns.
          ...(request.customs ? { customs: request.customs } : {}),
          ...(request.options ? { options: request.options } : {}),
          ...(request.isReturn ? { is_return: true } : {}),
        },
        decode: decodeLabel,
      });
      // Acme sends no label file and no bill: the platform draws the label and charges its rate card.
      return { ...purchase, label: null, billed: null };
    },

    async findPurchase(reference) {
      const labels = await http.call({
        operation: 'lookup',
        method: 'GET',
        path: '/labels',
        query: { reference },
        decode: (body) => (isRecord(body) ? decodeArray(body.data, decodeLabel) : undefined),
      });
      return labels.find((label) => label.reference === reference) ?? null;
    },

    async cancel({ reference }) {
      try {
        await http.call({
          operation: 'cancel',
          method: 'POST',
          path: '/labels/void',
          body: { reference },
          decode: decodeLabel,
        });
      } catch (error) {
        return refusedCancel(error);
      }
      return { kind: 'cancelled' };
    },

    async scans(trackingNumber) {
      const scans = await http.call({
        operation: 'track',
        method: 'GET',
        path: `/tracking/${encodeURIComponent(trackingNumber)}`,
        decode: (body) => (isRecord(body) ? decodeArray(body.events, decodeEvent) : undefined),
      });
      // Acme promises oldest first; sorting keeps that true even if it slips.
      return oldestFirst(scans);
    },

    // Up to 30 numbers in one call (capabilities.trackingBatch); a number Acme has no label for is its own not_found.
    async scansBatch(trackingNumbers) {
      const answer = await http.call({
        operation: 'track',
        method: 'POST',
        path: '/tracking',
        body: { tracking_numbers: trackingNumbers },
        decode: decodeTrackingMany,
      });
      const results = new Map<string, Scan[] | CarrierError>();
      for (const [number, scans] of answer.found) results.set(number, oldestFirst(scans));
      for (const number of answer.notFound) {
        results.set(number, new CarrierError('definitive', `No label with tracking number ${number}.`, { carrierCode: definition.code, reason: CARRIER_REASON.notFound }));
      }
      return results;
    },

    // Manifests and pickups are keyed by our reference at Acme, so a repeated request answers the same one.
    async createScanForm(request) {
      return http.call({
        operation: 'buy',
        method: 'POST',
        path: '/manifests',
        body: { reference: request.reference, from: request.from, tracking_numbers: request.labels.map((l) => l.trackingNumber) },
        decode: decodeManifest,
      });
    },

    async schedulePickup(request) {
      return http.call({
        operation: 'buy',
        method: 'POST',
        path: '/pickups',
        body: {
          reference: request.reference,
          address: request.address,
          ready_at: request.window.start,
          close_at: request.window.end,
          parcel_count: request.parcels.count,
          ...(request.instructions ? { instructions: request.instructions } : {}),
        },
        decode: decodePickup,
      });
    },

    async cancelPickup(confirmation) {
      await http.call({
        operation: 'cancel',
        method: 'POST',
        path: `/pickups/${encodeURIComponent(confirmation)}/cancel`,
        body: {},
        decode: (body) => (isRecord(body) && body.status === 'cancelled' ? true : undefined),
      });
    },
  };
}

function decodeEvent(value: unknown): Scan | undefined {
  if (!isRecord(value)) return undefined;
  const id = stringField(value, 'id');
  const occurredAt = stringField(value, 'occurred_at');
  const status = stringField(value, 'status');
  if (!id || !occurredAt || Number.isNaN(Date.parse(occurredAt)) || !isScanStatus(status)) return undefined;
  const location = isRecord(value.location) ? value.location : null;
  return {
    id,
    occurredAt: new Date(occurredAt).toISOString(),
    status,
    // Acme speaks our vocabulary: it has no status code of its own.
    carrierCode: null,
    description: stringField(value, 'description') ?? '',
    location: location && {
      city: stringField(location, 'city') ?? '',
      postcode: stringField(location, 'postcode') ?? '',
      country: stringField(location, 'country') ?? '',
    },
  };
}

/** `POST /tracking`'s answer: each number's events, and the numbers Acme has no label for. */
function decodeTrackingMany(value: unknown): { found: Array<[string, Scan[]]>; notFound: string[] } | undefined {
  if (!isRecord(value) || !Array.isArray(value.not_found) || !value.not_found.every((n) => typeof n === 'string')) return undefined;
  const found = decodeArray(value.data, (item): [string, Scan[]] | undefined => {
    if (!isRecord(item)) return undefined;
    const number = stringField(item, 'tracking_number');
    const scans = decodeArray(item.events, decodeEvent);
    return number && scans ? [number, scans] : undefined;
  });
  return found && { found, notFound: value.not_found as string[] };
}

function decodeManifest(value: unknown): ScanForm | undefined {
  if (!isRecord(value) || !isRecord(value.document)) return undefined;
  const id = stringField(value, 'id');
  const content = stringField(value.document, 'content_base64');
  if (!id || !content || value.document.format !== 'pdf') return undefined;
  return { carrierFormId: id, document: { format: 'pdf', contentBase64: content } };
}

function decodePickup(value: unknown): BookedPickup | undefined {
  if (!isRecord(value)) return undefined;
  const id = stringField(value, 'id');
  if (!id) return undefined;
  const fee = isRecord(value.fee) ? value.fee : null;
  const amount = fee?.amount;
  const currency = fee ? stringField(fee, 'currency') : undefined;
  if (fee && (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 0 || !currency)) return undefined;
  return { confirmation: id, fee: fee ? { amount: amount as number, currency: currency as string } : null };
}
