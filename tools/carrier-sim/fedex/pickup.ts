import { FEDEX_ERROR } from './rating.js';
import type { FedexSimPickup } from './state.js';

/** The FedEx simulator's Pickup Request answers: create, and cancel by confirmation code and date. */

export interface PickupBooks {
  account: string;
  pickups: Map<string, FedexSimPickup>;
  clock: () => number;
  nextSerial(): number;
}

/** Express locations by state, as FedEx answers `location` (the one a cancel must name). */
const LOCATIONS: Record<string, string> = { MD: 'BWIA', GA: 'ATLA', NY: 'NYCA', CA: 'LAXA', TX: 'AUSA' };

export function createPickup(books: PickupBooks, body: any): [number, unknown] {
  if (body.associatedAccountNumber.value !== books.account) return [403, FEDEX_ERROR('FORBIDDEN.ERROR', 'We could not authorize your credentials. Please check your permissions and try again.')];
  const origin = body.originDetail;
  const date = String(origin.readyDateTimestamp).slice(0, 10);
  if (date < new Date(books.clock() - 86_400_000).toISOString().slice(0, 10)) return [400, FEDEX_ERROR('PICKUP.REQUESTED.PREVIOUS.DAY', 'Cannot schedule a pickup requested for a previous day.')];
  if (String(origin.readyDateTimestamp).slice(11, 19) >= origin.customerCloseTime) return [400, FEDEX_ERROR('PICKUP.READYTIME.INVALID', 'The ready time must be earlier than the close time.')];
  const address = origin.pickupLocation.address;
  if (!address.postalCode) return [400, FEDEX_ERROR('PICKUP.POSTALCODE.MISSING', 'The pickup postal code is missing.')];
  const code = String(books.nextSerial()).padStart(4, '0');
  const location = LOCATIONS[address.stateOrProvinceCode] ?? 'MEMA';
  books.pickups.set(code, { code, carrierCode: body.carrierCode, location, scheduledDate: date, cancelled: false });
  return [200, { transactionId: 'sim-fedex', output: { pickupConfirmationCode: code, message: 'Courier on the way', location } }];
}

export function cancelPickup(books: PickupBooks, body: any): [number, unknown] {
  if (body.associatedAccountNumber.value !== books.account) return [403, FEDEX_ERROR('FORBIDDEN.ERROR', 'We could not authorize your credentials. Please check your permissions and try again.')];
  const pickup = books.pickups.get(body.pickupConfirmationCode);
  if (!pickup || pickup.scheduledDate !== body.scheduledDate || (body.carrierCode ?? 'FDXE') !== pickup.carrierCode) {
    return [404, FEDEX_ERROR('NOT.FOUND.ERROR', 'The resource you requested is no longer available. Please modify your request and try again.')];
  }
  if (pickup.carrierCode === 'FDXE' && body.location !== pickup.location) return [400, FEDEX_ERROR('PICKUP.LOCATION.INVALID', 'The location is required to cancel a FedEx Express pickup.')];
  if (pickup.scheduledDate < new Date(books.clock()).toISOString().slice(0, 10)) return [400, FEDEX_ERROR('PICKUP.NUMBER.EXPIRED', 'PREVIOUS DAY PICKUP, CANNOT CANCEL OR UPDATE')];
  pickup.cancelled = true;
  return [200, { transactionId: 'sim-fedex', output: { pickupConfirmationCode: pickup.code, cancelConfirmationMessage: 'Requested pickup has been cancelled Successfully.' } }];
}
