/** Carrier Pickup: our booking as USPS's `SchedulePickupRequest`, and its confirmation. */
import type { Address } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { addressState, splitZip, uspsAddressProblems } from './mapping-address.js';
import type { CarrierPickup } from './schemas/index.js';
import { gramsToPounds, uspsServiceByCode } from './services.js';

/** The request as USPS's document defines it (carriers/usps/schemas, generated). */
type UspsSchedulePickupRequest = CarrierPickup.Request;

export interface UspsPickupInput {
  address: Address;
  /** The day of the window's start, `YYYY-MM-DD`: USPS books days, not hours. */
  pickupDate: string;
  count: number;
  totalWeightG: number;
  serviceCodes: readonly string[];
  instructions?: string;
  contactEmail: string;
}

/**
 * The pickup address requires a first and a last name (`Addressee`): our one name is split at its
 * last space, and a name of one word is both. The name goes to `firm` too, as on our labels.
 */
function names(name: string): { firstName: string; lastName: string } {
  const trimmed = name.trim().slice(0, 50);
  const at = trimmed.lastIndexOf(' ');
  if (at <= 0) return { firstName: trimmed, lastName: trimmed };
  return { firstName: trimmed.slice(0, at).trim().slice(0, 50), lastName: trimmed.slice(at + 1) };
}

export function buildUspsPickupRequest(input: UspsPickupInput): UspsSchedulePickupRequest {
  const problems = uspsAddressProblems(input.address, 'address');
  if (problems.length) throw new Error(problems.map((p) => `${p.path} ${p.message}`).join('; '));
  const a = input.address;
  const line2 = a.line2?.trim();
  const mailClasses = input.serviceCodes.map((c) => uspsServiceByCode(c)?.mailClass).filter((m): m is NonNullable<typeof m> => m !== undefined);
  const counts = new Map<string, number>();
  for (const m of mailClasses) counts.set(m, (counts.get(m) ?? 0) + 1);
  // Parcels named without a known mail class (or none named) are `OTHER`.
  const other = input.count - mailClasses.length;
  const packages = [...counts].map(([packageType, packageCount]) => ({ packageType: packageType as UspsSchedulePickupRequest['packages'][number]['packageType'], packageCount }));
  if (other > 0 || packages.length === 0) packages.push({ packageType: 'OTHER', packageCount: Math.max(other, 1) });
  const instructions = input.instructions?.trim();
  return {
    pickupDate: input.pickupDate,
    pickupAddress: {
      ...names(a.name),
      firm: a.name.trim().slice(0, 50),
      address: {
        streetAddress: a.line1.trim(),
        ...(line2 ? { secondaryAddress: line2 } : {}),
        city: a.city.trim(),
        state: (addressState(a) as string).toUpperCase(),
        ...splitZip(a.postcode),
      },
      contact: [{ email: input.contactEmail }],
    },
    packages,
    // Pounds, at least one: the weight of parcels not named is not known.
    estimatedWeight: Math.max(1, Math.ceil(gramsToPounds(input.totalWeightG) * 10) / 10),
    pickupLocation: instructions ? { packageLocation: 'OTHER', specialInstructions: instructions } : { packageLocation: 'FRONT_DOOR' },
  };
}

export function parseUspsPickupConfirmation(body: unknown): string | undefined {
  if (!isRecord(body) || typeof body.confirmationNumber !== 'string' || body.confirmationNumber === '') return undefined;
  return body.confirmationNumber;
}
