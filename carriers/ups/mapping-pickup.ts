/** UPS Pickup: our booking as a Pickup Creation request, and its answers. Pure. */
import type { Address } from '../../domain/index.js';
import { localDate, localHhmm, timeZoneOf } from '../local-time.js';
import type { CarrierMoney } from '../types.js';
import { documentedAnswer } from './answers.js';
import type { PickupCancel, PickupCreation, PickupPending } from './schemas/index.js';
import { upsCarrierServiceCode } from './services.js';

/** The request as UPS's document defines it (carriers/ups/schemas, generated). */
type PickupCreationRequest = PickupCreation.PICKUPCreationRequestWrapper;

export const UPS_PICKUP_PATH = '/pickupcreation/v2409/pickup';
/** Pickup Pending Status of on-call pickups (the account in the `AccountNumber` header). */
export const UPS_PICKUP_PENDING_PATH = '/shipments/v2409/pickup/oncall';
/** Cancel by PRN (`CancelBy` 02). */
export const UPS_PICKUP_CANCEL_PATH = '/shipments/v2409/pickup/02';

export interface UpsPickupInput {
  reference: string;
  address: Address;
  window: { start: string; end: string };
  count: number;
  totalWeightG: number;
  serviceCodes: readonly string[];
  /** Where the parcels go; the pickup's own country when none are named. */
  destinationCountries: readonly string[];
  instructions?: string;
  phone: string;
  accountNumber: string;
}

/** The heaviest total `TotalWeight.Weight` can say: exactly six characters, one decimal (`9999.9`). */
const MAX_TOTAL_WEIGHT = 9999.9;

/** The total weight in the pickup's unit, rounded up to a tenth: pounds in the US, kilograms elsewhere. */
function totalWeight(totalWeightG: number, country: string): { value: number; unit: 'LBS' | 'KGS' } {
  const us = country.toUpperCase() === 'US';
  const value = us ? totalWeightG / 453.59237 : totalWeightG / 1000;
  return { value: Math.max(0.1, Math.ceil(value * 10) / 10), unit: us ? 'LBS' : 'KGS' };
}

/** What of our booking UPS cannot take as it is (never cut to fit). */
export function upsPickupProblems(
  input: Pick<UpsPickupInput, 'address' | 'instructions' | 'phone'> & { window?: UpsPickupInput['window']; totalWeightG?: number },
): string[] {
  const problems: string[] = [];
  const zone = timeZoneOf(input.address);
  // UPS takes the pickup location's local date and times: its zone must be known from the address.
  if (input.window && !zone) problems.push("address must be one whose local time is known (a US state or ZIP, or a country of one time zone) for a UPS pickup");
  // UPS books one day's ready and close times: a window that runs past the location's midnight cannot be said.
  if (input.window && zone && localDate(input.window.start, zone) !== localDate(input.window.end, zone)) {
    problems.push(`window must start and end on the same local day (${zone}) for a UPS pickup`);
  }
  if (input.totalWeightG !== undefined && totalWeight(input.totalWeightG, input.address.country).value > MAX_TOTAL_WEIGHT) {
    problems.push(`the parcels' total weight must be at most ${MAX_TOTAL_WEIGHT} ${totalWeight(input.totalWeightG, input.address.country).unit} for a UPS pickup`);
  }
  const a = input.address;
  if (a.name.trim().length > 22) problems.push('address.name must be at most 22 characters for a UPS pickup');
  if (a.line1.trim().length > 35) problems.push('address.line1 must be at most 35 characters for a UPS pickup');
  if ((a.line2?.trim().length ?? 0) > 0) problems.push('address.line2 cannot be sent on a UPS pickup (one address line only)');
  if (a.city.trim().length > 50) problems.push('address.city must be at most 50 characters for a UPS pickup');
  if (a.postcode.trim().length > 8) problems.push('address.postcode must be at most 8 characters for a UPS pickup');
  if ((input.instructions?.trim().length ?? 0) > 57) problems.push('instructions must be at most 57 characters for a UPS pickup');
  if (!/^[0-9+()\-\s]{1,25}$/.test(input.phone)) problems.push('a phone number of at most 25 characters is needed for a UPS pickup');
  return problems;
}

export function buildUpsPickupRequest(input: UpsPickupInput): PickupCreationRequest {
  const a = input.address;
  const us = a.country.toUpperCase() === 'US';
  const byService = new Map<string, number>();
  for (const code of input.serviceCodes) {
    const carrierCode = upsCarrierServiceCode(code);
    if (carrierCode) byService.set(carrierCode.padStart(3, '0'), (byService.get(carrierCode.padStart(3, '0')) ?? 0) + 1);
  }
  const destination = input.destinationCountries[0] ?? a.country.toUpperCase();
  // Parcels of services we cannot name go as Ground (003), the service a collection is booked for by default.
  const named = [...byService.values()].reduce((s, n) => s + n, 0);
  if (input.count > named) byService.set('003', (byService.get('003') ?? 0) + input.count - named);
  const weight = totalWeight(input.totalWeightG, a.country);
  // The pickup location's own clock: the document's ReadyTime, CloseTime and PickupDate are local.
  const zone = timeZoneOf(a);
  if (!zone) throw new Error(`the local time of a pickup in ${a.country} is not known`);
  const instructions = input.instructions?.trim();
  const state = (a as Address & { state?: string }).state?.trim();
  return {
    PickupCreationRequest: {
      Request: { TransactionReference: { CustomerContext: input.reference } },
      RatePickupIndicator: 'Y',
      Shipper: { Account: { AccountNumber: input.accountNumber, AccountCountryCode: a.country.toUpperCase() } },
      PickupDateInfo: {
        ReadyTime: localHhmm(input.window.start, zone),
        CloseTime: localHhmm(input.window.end, zone),
        PickupDate: localDate(input.window.start, zone).replace(/-/g, ''),
      },
      PickupAddress: {
        CompanyName: a.name.trim().slice(0, 27),
        ContactName: a.name.trim(),
        AddressLine: [a.line1.trim()],
        City: a.city.trim(),
        ...(state ? { StateProvince: state.toUpperCase() } : {}),
        PostalCode: a.postcode.trim(),
        CountryCode: a.country.toUpperCase(),
        ResidentialIndicator: 'N',
        Phone: { Number: input.phone },
      },
      AlternateAddressIndicator: 'Y',
      PickupPiece: [...byService].map(([ServiceCode, n]) => ({ ServiceCode, Quantity: String(Math.min(n, 999)), DestinationCountryCode: destination, ContainerCode: '01' as const })),
      // Exactly six characters with one decimal, as the schema says: `0000.1`.
      TotalWeight: { Weight: weight.value.toFixed(1).padStart(6, '0'), UnitOfMeasurement: weight.unit },
      OverweightIndicator: 'N',
      PaymentMethod: '01',
      ...(instructions ? { SpecialInstruction: instructions } : {}),
      ReferenceNumber: input.reference,
    },
  };
}

export interface UpsBookedPickup {
  prn: string;
  fee: CarrierMoney | null;
}

/** The PRN and the rated fee (`RateStatus` 01 with `RateResult`); undefined when the answer is not one. */
export function parseUpsPickupResponse(body: unknown): UpsBookedPickup | undefined {
  const r = documentedAnswer<Partial<PickupCreation.PICKUPCreationResponseWrapper>>('pickup-creation', body)?.PickupCreationResponse;
  if (!r || r.Response.ResponseStatus.Code !== '1' || !r.PRN) return undefined;
  const rate = r.RateStatus.Code === '01' ? r.RateResult : undefined;
  if (!rate) return { prn: r.PRN, fee: null };
  // A fee we cannot read is never guessed: the document says only "a monetary value".
  const total = rate.GrandTotalOfAllCharge?.trim() ?? '';
  if (!/^\d+(\.\d{1,2})?$/.test(total)) return undefined;
  const [whole, cents = ''] = total.split('.');
  return { prn: r.PRN, fee: { amount: Number(whole) * 100 + Number(cents.padEnd(2, '0')), currency: rate.CurrencyCode ?? 'USD' } };
}

export function parseUpsPickupCancelResponse(body: unknown): true | undefined {
  return documentedAnswer<PickupCancel.Response200>('pickup-cancel', body)?.PickupCancelResponse.Response.ResponseStatus.Code === '1' ? true : undefined;
}

/** A pending on-call pickup: its PRN, local service date (`yyyyMMdd`) and the reference it was booked with. */
export interface UpsPendingPickup {
  prn: string;
  serviceDate: string;
  reference: string | null;
}

/** The pending pickups of a Pickup Pending Status answer; undefined when the answer is not one. */
export function parseUpsPendingPickups(body: unknown): UpsPendingPickup[] | undefined {
  const r = documentedAnswer<PickupPending.Response200>('pickup-pending', body)?.PickupPendingStatusResponse;
  if (!r || r.Response.ResponseStatus.Code !== '1') return undefined;
  return r.PendingStatus.map((p) => ({ prn: p.PRN, serviceDate: p.ServiceDate, reference: p.ReferenceNumber ?? null }));
}
