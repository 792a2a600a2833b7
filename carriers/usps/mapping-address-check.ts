/**
 * The Addresses API mapping (`addresses.yaml`, `GET /addresses/v3/address`): our address as the
 * query USPS standardizes, and its answer as our address check. Pure: `client-addresses.ts` calls.
 *
 * What the answer means, from the document:
 * - 200 is the standardized address with its ZIP+4. `DPVConfirmation` says whether it is a delivery
 *   point: `Y` verified; `D` (apartment or suite missing) and `S` (the one given not confirmed)
 *   verified at the building, with a message; `N` not verified. Correction `22` (several addresses,
 *   no default) is not verified either; `32` (a default address, more needed) is the message of `D`.
 * - 404 is an address USPS cannot match ("no match", "more than one address", an invalid city or
 *   state): not verified, with USPS's words.
 * - Residential: USPS flags business addresses (`business: Y`); an address it says is not one is
 *   residential, and one it does not flag either way is unknown.
 */
import type { Address } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { CarrierError } from '../types.js';
import { US_POSTAL_COUNTRIES, joinZip, postalState, standardised, zipParts, type AddressMessage, type AddressVerification } from '../address-verification.js';
import { USPS_SCHEMAS, type Address as UspsAddress } from './schemas/index.js';
import { USPS_STATE_CODES } from './states.js';

/** The query we send: the document's, of the fields we fill. */
type UspsAddressQuery = Pick<UspsAddress.Parameters['query'], 'streetAddress' | 'secondaryAddress' | 'city' | 'state' | 'ZIPCode' | 'ZIPPlus4'>;

export const USPS_ADDRESS_PATH = '/addresses/v3/address';

const STATES: ReadonlySet<string> = new Set(USPS_STATE_CODES);

/** Our address as the query of `GET /address`; a definitive CarrierError for one USPS cannot look up. */
export function buildUspsAddressQuery(address: Address): UspsAddressQuery {
  const state = postalState(address);
  if (!US_POSTAL_COUNTRIES.includes(address.country)) throw refusal(`USPS checks US and Puerto Rico addresses, not ${address.country}`);
  if (!state || !STATES.has(state)) throw refusal(`state ${state ?? '(none)'} is not a USPS state code`);
  const zip = zipParts(address.postcode);
  return {
    streetAddress: address.line1,
    ...(address.line2 ? { secondaryAddress: address.line2 } : {}),
    city: address.city,
    state,
    // A postcode that is no ZIP Code is left out: USPS finds it from the city and state.
    ...(zip ? { ZIPCode: zip.zip, ...(zip.plus4 ? { ZIPPlus4: zip.plus4 } : {}) } : {}),
  };
}

/** The request's path and query string. */
export function uspsAddressPath(query: UspsAddressQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (typeof value === 'string') params.set(key, value);
  return `${USPS_ADDRESS_PATH}?${params.toString()}`;
}

/** A 200 answer as our check; undefined when it is not the document's `AddressResponse` with an address. */
export function parseUspsAddressResponse(body: unknown, sent: Address): AddressVerification | undefined {
  if (USPS_SCHEMAS.address.responseProblems(200, body).length > 0) return undefined;
  const answer = body as UspsAddress.Response200;
  const a = answer.address;
  if (!a?.streetAddress || !a.city || !a.ZIPCode) return undefined;
  const info = answer.additionalInfo ?? {};
  const dpv = info.DPVConfirmation;
  const messages: AddressMessage[] = [];
  let ambiguous = false;
  for (const c of answer.corrections ?? []) {
    if (c.code === '22') ambiguous = true;
    const code = c.code === '22' ? 'multiple_matches' : c.code === '32' ? 'secondary_missing' : 'address_corrected';
    messages.push({ code, message: c.text || `USPS correction ${c.code ?? ''}`.trim() });
  }
  const has = (code: AddressMessage['code']) => messages.some((m) => m.code === code);
  if (dpv === 'D' && !has('secondary_missing')) messages.push({ code: 'secondary_missing', message: 'The building was confirmed; its apartment or suite number is missing.' });
  if (dpv === 'S') messages.push({ code: 'secondary_not_confirmed', message: 'The building was confirmed; the apartment or suite number given was not.' });
  if (dpv === 'N') messages.push({ code: 'address_not_found', message: 'USPS could not confirm the address as a delivery point.' });
  if (info.DPVCMRA === 'Y') messages.push({ code: 'commercial_mail_receiving_agency', message: 'The address is a Commercial Mail Receiving Agency (a private mailbox).' });
  if (info.vacant === 'Y') messages.push({ code: 'vacant', message: 'USPS knows the address as not occupied.' });
  for (const w of answer.warnings ?? []) if (w.trim()) messages.push({ code: 'carrier_notice', message: w });
  // Without a DPV flag, a ZIP+4 is what says the address resolved to a delivery point.
  const confirmed = dpv === undefined ? Boolean(a.ZIPPlus4) : dpv !== 'N';
  return {
    verified: confirmed && !ambiguous,
    address: standardised(sent, {
      line1: a.streetAddress,
      ...(a.secondaryAddress ? { line2: a.secondaryAddress } : {}),
      city: a.city,
      ...(a.state ? { state: a.state } : {}),
      postcode: joinZip(a.ZIPCode, a.ZIPPlus4),
    }),
    residential: info.business === 'Y' ? false : info.business === 'N' ? true : null,
    messages,
  };
}

/** A 404 answer (USPS matched nothing) as our check; undefined when the body is no `ErrorMessage`. */
export function parseUspsAddressNotFound(body: unknown, sent: Address): AddressVerification | undefined {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const message = typeof error?.message === 'string' && error.message.trim() ? error.message.trim() : undefined;
  if (!message) return undefined;
  return {
    verified: false,
    address: sent,
    residential: null,
    messages: [{ code: /more than one address/i.test(message) ? 'multiple_matches' : 'address_not_found', message }],
  };
}

function refusal(message: string): CarrierError {
  return new CarrierError('definitive', message, { carrierCode: 'usps' });
}
