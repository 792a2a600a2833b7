import type { Address } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { localDate, localHhmm, timeZoneOf } from '../local-time.js';
import { FEDEX_LIMITS } from './limits.js';
import { fedexAddress, fedexPhone, fedexWeight } from './mapping-address.js';
import type { Pickups, PickupsCancel } from './schemas/index.js';
import { fedexOperatingCompany } from './services.js';

/** FedEx Pickup Request: our booking as a Create Pickup request, its answers and its cancel. Pure. */

export const FEDEX_PICKUP_PATH = '/pickup/v1/pickups';
export const FEDEX_PICKUP_CANCEL_PATH = '/pickup/v1/pickups/cancel';

export interface FedexPickupInput {
  reference: string;
  address: Address;
  window: { start: string; end: string };
  count: number;
  totalWeightG: number;
  serviceCodes: readonly string[];
  destinationCountries: readonly string[];
  instructions?: string;
  phone?: string;
  accountNumber: string;
  /** Now, for FedEx's same-day or future-day pickup. */
  now: Date;
}

/**
 * The operating company that collects: FedEx Express (FDXE) when any parcel goes by an Express
 * service or none is named, FedEx Ground (FDXG) when every one goes by Ground or Home Delivery.
 */
export function pickupCarrier(serviceCodes: readonly string[]): 'FDXE' | 'FDXG' {
  return serviceCodes.length > 0 && serviceCodes.every((code) => fedexOperatingCompany(code) === 'FDXG') ? 'FDXG' : 'FDXE';
}

/** What of our booking FedEx cannot take as it is (never cut to fit). */
export function fedexPickupProblems(input: { address: Address; window: { start: string; end: string }; instructions?: string; phone?: string }): string[] {
  const problems: string[] = [];
  const zone = timeZoneOf(input.address);
  // FedEx takes the pickup location's local ready and close times: its zone must be known.
  if (!zone) problems.push('address must be one whose local time is known (a US state or ZIP, or a country of one time zone) for a FedEx pickup');
  else if (localDate(input.window.start, zone) !== localDate(input.window.end, zone)) problems.push(`window must start and end on the same local day (${zone}) for a FedEx pickup`);
  // The pickup location's address requires a state or province (Create Pickup `pickupLocation.address`).
  if (!input.address.state?.trim()) problems.push('address.state is required for a FedEx pickup');
  if (input.address.line1.trim().length > FEDEX_LIMITS.streetLine) problems.push(`address.line1 must be at most ${FEDEX_LIMITS.streetLine} characters for a FedEx pickup`);
  if ((input.address.line2?.trim().length ?? 0) > FEDEX_LIMITS.streetLine) problems.push(`address.line2 must be at most ${FEDEX_LIMITS.streetLine} characters for a FedEx pickup`);
  if ((input.instructions?.trim().length ?? 0) > FEDEX_LIMITS.pickupRemarks) problems.push(`instructions must be at most ${FEDEX_LIMITS.pickupRemarks} characters for a FedEx pickup`);
  const phone = fedexPhone(input.phone, input.address.country);
  if (phone !== undefined && (phone.length < FEDEX_LIMITS.pickupPhoneMin || phone.length > FEDEX_LIMITS.pickupPhoneMax)) {
    problems.push(`phone must have ${FEDEX_LIMITS.pickupPhoneMin} to ${FEDEX_LIMITS.pickupPhoneMax} digits for a FedEx pickup`);
  }
  return problems;
}

const hms = (hhmm: string) => `${hhmm.slice(0, 2)}:${hhmm.slice(2, 4)}:00`;

/**
 * `POST /pickup/v1/pickups`: an on-call pickup at an address of ours (OTHER than the account's),
 * its ready time and close time on the location's own clock without a zone designator, as the
 * document asks ("The time is local to the pickup postal code"), its total weight in pounds ("Unit
 * of measure is LB").
 */
export function buildPickupRequest(input: FedexPickupInput) {
  const a = input.address;
  const zone = timeZoneOf(a);
  if (!zone) throw new Error(`the local time of a pickup in ${a.country} is not known`);
  const day = localDate(input.window.start, zone);
  const phone = fedexPhone(input.phone, a.country);
  const company = a.company?.trim();
  const remarks = input.instructions?.trim();
  const abroad = input.destinationCountries.some((c) => c.toUpperCase() !== a.country.toUpperCase());
  return {
    associatedAccountNumber: { value: input.accountNumber },
    originDetail: {
      pickupAddressType: 'OTHER',
      pickupLocation: {
        contact: { personName: a.name.trim(), ...(company ? { companyName: company } : {}), ...(phone ? { phoneNumber: phone } : {}) },
        // The state is required here; a booking without one is refused before (fedexPickupProblems).
        address: { ...fedexAddress(a), stateOrProvinceCode: (a.state ?? '').trim().toUpperCase() },
      },
      readyDateTimestamp: `${day}T${hms(localHhmm(input.window.start, zone))}`,
      customerCloseTime: hms(localHhmm(input.window.end, zone)),
      pickupDateType: day === localDate(input.now, zone) ? 'SAME_DAY' : 'FUTURE_DAY',
      packageLocation: 'NONE',
    },
    totalWeight: { units: 'LB', value: fedexWeight(input.totalWeightG, 'LB') },
    packageCount: input.count,
    carrierCode: pickupCarrier(input.serviceCodes),
    ...(remarks ? { remarks } : {}),
    countryRelationships: abroad ? 'INTERNATIONAL' : 'DOMESTIC',
    pickupType: 'ON_CALL',
  } satisfies Pickups.Full_Schema_Create_Pickup;
}

/**
 * What cancelling needs beside the confirmation code (the day, the operating company and, for
 * Express, the location FedEx answered), kept in our confirmation: `code/carrier/location/date`.
 */
export interface FedexPickupConfirmation {
  code: string;
  carrierCode: 'FDXE' | 'FDXG';
  location: string;
  scheduledDate: string;
}

export function formatPickupConfirmation(c: FedexPickupConfirmation): string {
  return [c.code, c.carrierCode, c.location, c.scheduledDate].join('/');
}

export function parsePickupConfirmation(text: string): FedexPickupConfirmation | undefined {
  const [code, carrierCode, location, scheduledDate, ...rest] = text.split('/');
  if (rest.length || !code || (carrierCode !== 'FDXE' && carrierCode !== 'FDXG') || location === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(scheduledDate ?? '')) return undefined;
  return { code, carrierCode, location, scheduledDate: scheduledDate! };
}

/** The booking's confirmation, or undefined when the answer has no confirmation code. */
export function parsePickupResponse(body: unknown, request: ReturnType<typeof buildPickupRequest>): string | undefined {
  if (!isRecord(body) || !isRecord(body.output) || typeof body.output.pickupConfirmationCode !== 'string' || body.output.pickupConfirmationCode === '') return undefined;
  const location = typeof body.output.location === 'string' ? body.output.location : '';
  return formatPickupConfirmation({
    code: body.output.pickupConfirmationCode,
    carrierCode: request.carrierCode,
    location,
    scheduledDate: request.originDetail.readyDateTimestamp.slice(0, 10),
  });
}

/** `PUT /pickup/v1/pickups/cancel` of a confirmation we made. */
export function buildPickupCancelRequest(accountNumber: string, confirmation: FedexPickupConfirmation) {
  return {
    associatedAccountNumber: { value: accountNumber },
    pickupConfirmationCode: confirmation.code,
    carrierCode: confirmation.carrierCode,
    scheduledDate: confirmation.scheduledDate,
    ...(confirmation.location ? { location: confirmation.location } : {}),
  } satisfies PickupsCancel.Full_Schema_Cancel_Pickup;
}

export function parsePickupCancelResponse(body: unknown): true | undefined {
  return isRecord(body) && isRecord(body.output) && typeof body.output.pickupConfirmationCode === 'string' ? true : undefined;
}
