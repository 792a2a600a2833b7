import { localDate, timeZoneOf } from '../../../carriers/local-time.js';
import type { PickupCreation } from '../../../carriers/ups/schemas/index.js';
import { UPS_ERROR } from './rating.js';

/**
 * The UPS simulator's Pickup answers, as `Pickup.yaml` says: Pickup Creation (rated when
 * `RatePickupIndicator` is Y, a flat on-call charge plus a little per piece, in the account
 * country's currency) and Pickup Cancel by PRN. Every request is checked against the document's
 * schema first (`./index.ts`, code 9500001).
 */

export interface SimPickup {
  prn: string;
  reference: string | undefined;
  cancelled: boolean;
  /** The local pickup date as booked, `yyyyMMdd`, and the location's zone (its today and tomorrow). */
  serviceDate: string;
  zone: string;
  contactName: string;
}

/** The on-call charge in cents: a base and a per-piece amount. */
const BASE_CENTS = 725;
const PER_PIECE_CENTS = 50;

export interface PickupBooks {
  pickups: Map<string, SimPickup>;
  clock: () => number;
  nextSerial(): number;
}

export function createPickup(books: PickupBooks, body: unknown): [number, unknown] {
  const r = (body as PickupCreation.PICKUPCreationRequestWrapper).PickupCreationRequest;
  const d = r.PickupDateInfo;
  if (d.ReadyTime >= d.CloseTime) return [400, UPS_ERROR('9510113', 'The ready time must be earlier than the close time.')];
  const today = new Date(books.clock()).toISOString().slice(0, 10).replace(/-/g, '');
  if (d.PickupDate < today) return [400, UPS_ERROR('9510121', 'The pickup date is in the past.')];
  const prn = `2929${String(books.nextSerial()).padStart(7, '0')}`;
  const a = r.PickupAddress;
  const zone = timeZoneOf({ name: a.ContactName, line1: a.AddressLine[0] ?? '', city: a.City, postcode: a.PostalCode ?? '', country: a.CountryCode, ...(a.StateProvince ? { state: a.StateProvince } : {}) }) ?? 'UTC';
  books.pickups.set(prn, { prn, reference: r.ReferenceNumber, cancelled: false, serviceDate: d.PickupDate, contactName: a.ContactName, zone });
  const pieces = r.PickupPiece.reduce((n, p) => n + Number(p.Quantity), 0);
  const total = ((BASE_CENTS + PER_PIECE_CENTS * pieces) / 100).toFixed(2);
  const currency = r.PickupAddress.CountryCode === 'US' ? 'USD' : r.PickupAddress.CountryCode === 'CA' ? 'CAD' : r.PickupAddress.CountryCode === 'GB' ? 'GBP' : 'EUR';
  const rated = r.RatePickupIndicator === 'Y';
  return [
    200,
    {
      PickupCreationResponse: {
        Response: { ResponseStatus: { Code: '1', Description: 'Success' }, ...(r.Request.TransactionReference ? { TransactionReference: r.Request.TransactionReference } : {}) },
        PRN: prn,
        RateStatus: rated ? { Code: '01', Description: 'Rate available' } : { Code: '04', Description: 'Rate not requested' },
        ...(rated
          ? {
              RateResult: {
                RateType: d.PickupDate === today ? 'SD' : 'FD',
                CurrencyCode: currency,
                ChargeDetail: [{ ChargeCode: 'B', ChargeDescription: 'BASE CHARGE', ChargeAmount: total }],
                GrandTotalOfAllCharge: total,
              },
            }
          : {}),
      },
    },
  ];
}

export function cancelPickup(books: PickupBooks, cancelBy: string, prn: string | undefined): [number, unknown] {
  if (cancelBy !== '02') return [400, UPS_ERROR('9510117', 'Only cancellation by PRN (02) is supported by this simulator.')];
  const pickup = prn === undefined ? undefined : books.pickups.get(prn);
  if (!pickup) return [400, UPS_ERROR('9510120', 'The PRN is invalid or does not exist.')];
  if (pickup.cancelled) return [400, UPS_ERROR('9510122', 'The pickup has already been cancelled.')];
  pickup.cancelled = true;
  return [200, { PickupCancelResponse: { Response: { ResponseStatus: { Code: '1', Description: 'Success' } }, PickupType: '01' } }];
}

/**
 * Pickup Pending Status (`GET /shipments/v2409/pickup/{pickuptype}`, the account in the
 * `AccountNumber` header): the account's on-call pickups not cancelled, for today and tomorrow only,
 * as the document says, each with its PRN and the reference the booking was given.
 */
export function pendingPickups(books: PickupBooks, account: string, pickupType: string, accountHeader: string | undefined): [number, unknown] {
  if (!['oncall', 'smart', 'both'].includes(pickupType)) return [400, UPS_ERROR('9500002', 'Invalid pickup type.')];
  if (accountHeader !== account) return [400, UPS_ERROR('9510100', 'The AccountNumber is missing or invalid.')];
  // Today and tomorrow at each pickup's own location.
  const day = (zone: string, offset: number) => localDate(new Date(books.clock() + offset * 86_400_000), zone).replace(/-/g, '');
  const pending = pickupType === 'smart' ? [] : [...books.pickups.values()].filter((p) => !p.cancelled && (p.serviceDate === day(p.zone, 0) || p.serviceDate === day(p.zone, 1)));
  return [
    200,
    {
      PickupPendingStatusResponse: {
        Response: { ResponseStatus: { Code: '1', Description: 'Success' } },
        PendingStatus: pending.map((p) => ({
          PickupType: '01',
          ServiceDate: p.serviceDate,
          PRN: p.prn,
          OnCallStatusCode: '002',
          PickupStatusMessage: 'Received',
          BillingCode: '01',
          ContactName: p.contactName,
          ...(p.reference ? { ReferenceNumber: p.reference } : {}),
        })),
      },
    },
  ];
}
