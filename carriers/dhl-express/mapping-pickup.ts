import type { Address } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { Pickups } from './schemas/index.js';
import { localHhmm, timeZoneOf } from '../local-time.js';
import type { AddressProblem, PickupRequest } from '../types.js';
import { dhlAddressProblems, dhlParty, dhlPhoneProblems } from './mapping-address.js';
import { dhlProductCode, dhlRoute, isCustomsDeclarable } from './services.js';

/** `POST /pickups` (exp-api-pickups) and `DELETE /pickups/{dispatchConfirmationNumber}` (exp-api-pickups-cancel). */
export const DHL_PICKUPS_PATH = '/pickups';

export function dhlPickupCancelPath(confirmation: string): string {
  return `${DHL_PICKUPS_PATH}/${encodeURIComponent(confirmation)}`;
}

/** The cancel's required query: who asks and why (the platform cancels on its customer's word). */
export const DHL_PICKUP_CANCEL_QUERY = { requestorName: 'Parcel shipping platform', reason: 'Cancelled by the shipper' } as const;

/** DHL's instructions to the courier are at most 80 characters each, four of them. */
const INSTRUCTION_LIMIT = 80;

/** What DHL cannot take of a pickup: a phone at the address (required), lengths of its address and instructions. */
export function dhlPickupProblems(request: Pick<PickupRequest, 'address' | 'phone' | 'instructions'>): AddressProblem[] {
  const phone = request.phone ?? request.address.phone;
  const problems = [...dhlAddressProblems(request.address, 'address'), ...dhlPhoneProblems(request.address, 'address', phone)];
  if (request.instructions && request.instructions.length > INSTRUCTION_LIMIT) {
    problems.push({ path: 'instructions', message: `DHL Express takes at most ${INSTRUCTION_LIMIT} characters here` });
  }
  return problems;
}

/** `2024-05-02T09:00:00 GMT+00:00`: an instant as DHL writes a date-time with its offset. */
function dhlDateTime(instant: string): string {
  return `${new Date(instant).toISOString().slice(0, 19)} GMT+00:00`;
}

/** The shipment details DHL wants of a pickup: the parcels' product, its customs status, their weights. */
function shipmentDetails(request: PickupRequest) {
  const countries = request.parcels.destinationCountries?.length ? request.parcels.destinationCountries : [request.address.country];
  const route = dhlRoute(request.address.country, countries[0]);
  const declarable = countries.some((country) => isCustomsDeclarable(dhlRoute(request.address.country, country)));
  const productCode = request.parcels.serviceCodes.map((code) => dhlProductCode(code, route)).find(Boolean) ?? (route === 'domestic' ? 'N' : route === 'within_eu' ? 'U' : 'P');
  const count = Math.max(1, request.parcels.count);
  const each = Math.max(request.parcels.totalWeightG / count, 1) / 1_000;
  return {
    productCode,
    isCustomsDeclarable: declarable,
    unitOfMeasurement: 'metric' as const,
    packages: Array.from({ length: count }, () => ({ weight: Math.round(each * 1_000) / 1_000 })),
  };
}

export function buildDhlPickupRequest(request: PickupRequest, accountNumber: string): Pickups.Request {
  const zone = timeZoneOf(request.address);
  const close = zone ? localHhmm(request.window.end, zone) : undefined;
  const address: Address = request.address;
  return {
    plannedPickupDateAndTime: dhlDateTime(request.window.start),
    // The close time is the location's own clock: given only where the address tells its zone.
    ...(close ? { closeTime: `${close.slice(0, 2)}:${close.slice(2)}` } : {}),
    accounts: [{ typeCode: 'shipper' as const, number: accountNumber }],
    ...(request.instructions ? { specialInstructions: [{ value: request.instructions }] } : {}),
    // Our pickup id, where the courier's dispatcher sees it.
    remark: request.reference,
    customerDetails: { shipperDetails: dhlParty(address, request.phone ?? address.phone) },
    shipmentDetails: [shipmentDetails(request)],
  };
}


/** The booking's confirmation number; undefined when the answer names none. */
export function parseDhlPickupResponse(body: unknown): { confirmation: string } | undefined {
  if (!isRecord(body) || !Array.isArray(body.dispatchConfirmationNumbers)) return undefined;
  const first = body.dispatchConfirmationNumbers.find((n): n is string => typeof n === 'string' && n !== '');
  return first ? { confirmation: first } : undefined;
}
