/**
 * The Address Validation - Street Level mapping (`AddressValidation.yaml`): our address as an
 * `XAVRequest` asking for validation and classification (request option 3), and UPS's answer as our
 * address check. Pure: the client sends it.
 *
 * What the answer means, from the document:
 * - `ValidAddressIndicator`: a match; its one candidate is the standardized address, with the ZIP+4
 *   (`PostcodeExtendedLow`);
 * - `AmbiguousAddressIndicator`: no exact match, the candidates follow: not verified, and the message
 *   names the first few so that a person can pick;
 * - `NoCandidatesIndicator` (or no indicator): no match.
 * - `AddressClassification` `1` is commercial, `2` residential, `0` unclassified (unknown). A
 *   candidate's own classification comes first, then the input's.
 * Alerts in `Response.Alert` are passed on as notices.
 */
import type { Address } from '../../domain/index.js';
import { CarrierError } from '../types.js';
import { US_POSTAL_COUNTRIES, joinZip, postalState, standardised, zipParts, type AddressMessage, type AddressVerification } from '../address-verification.js';
import { documentedAnswer } from './answers.js';
import type { AddressValidation } from './schemas/index.js';

/** The request as UPS's document defines it (carriers/ups/schemas, generated). */
type XAVRequestWrapper = AddressValidation.XAVRequestWrapper;
type XAVCandidateAddress = AddressValidation.Candidate_AddressKeyFormat;

/** Validation and classification: `3` in the document's list of request options. */
export const UPS_ADDRESS_VALIDATION_PATH = '/addressvalidation/v2/3';
/** Enough candidates to name a few in the message; the document's default is 15. */
const CANDIDATES = 5;
const CANDIDATES_NAMED = 3;

/** The request: path (under `/api`), query and body. A definitive CarrierError for an address UPS cannot take whole. */
export function buildUpsAddressValidationRequest(address: Address): { path: string; query: Record<string, string>; body: XAVRequestWrapper } {
  if (!US_POSTAL_COUNTRIES.includes(address.country)) throw refusal(`UPS street-level validation covers US and Puerto Rico addresses, not ${address.country}`);
  const state = postalState(address);
  const lines = [address.line1, ...(address.line2 ? [address.line2] : [])];
  // Never cut for UPS: a field longer than the document allows is refused before any call.
  if (lines.some((l) => l.length > 100)) throw refusal('an address line is longer than the 100 characters UPS validates');
  if (address.city.length > 30) throw refusal('the city is longer than the 30 characters UPS validates');
  const zip = zipParts(address.postcode);
  return {
    path: UPS_ADDRESS_VALIDATION_PATH,
    query: { maximumcandidatelistsize: String(CANDIDATES) },
    body: {
      XAVRequest: {
        AddressKeyFormat: {
          AddressLine: lines,
          PoliticalDivision2: address.city,
          ...(state ? { PoliticalDivision1: state } : {}),
          ...(zip ? { PostcodePrimaryLow: zip.zip, ...(zip.plus4 ? { PostcodeExtendedLow: zip.plus4 } : {}) } : {}),
          CountryCode: address.country,
        },
      },
    },
  };
}

/** A 200 answer as our check; undefined when it is not the document's `XAVResponse`. */
export function parseUpsAddressValidationResponse(body: unknown, sent: Address): AddressVerification | undefined {
  const answer = documentedAnswer<AddressValidation.Response200>('address-validation', body);
  if (!answer) return undefined;
  const r = answer.XAVResponse;
  const notices: AddressMessage[] = (r.Response.Alert ?? []).map((a) => ({ code: 'carrier_notice', message: a.Description }));
  const candidates = r.Candidate ?? [];
  if (r.ValidAddressIndicator !== undefined) {
    const best = candidates[0];
    // A match without its address is not an answer we can give as one.
    if (!best) return undefined;
    return {
      verified: true,
      address: fromCandidate(sent, best.AddressKeyFormat),
      residential: residential(best.AddressClassification?.Code ?? r.AddressClassification?.Code),
      messages: notices,
    };
  }
  if (r.AmbiguousAddressIndicator !== undefined && candidates.length > 0) {
    const named = candidates.slice(0, CANDIDATES_NAMED).map((c) => oneLine(fromCandidate(sent, c.AddressKeyFormat)));
    const more = candidates.length > named.length ? `, and ${candidates.length - named.length} more` : '';
    return {
      verified: false,
      address: sent,
      residential: residential(r.AddressClassification?.Code),
      messages: [{ code: 'multiple_matches', message: `UPS found ${candidates.length} possible addresses: ${named.join('; ')}${more}.` }, ...notices],
    };
  }
  return {
    verified: false,
    address: sent,
    residential: null,
    messages: [{ code: 'address_not_found', message: 'UPS found no address that matches this one.' }, ...notices],
  };
}

function fromCandidate(sent: Address, c: XAVCandidateAddress): Address {
  const [line1, ...rest] = c.AddressLine ?? [];
  return standardised(sent, {
    line1: line1 ?? sent.line1,
    ...(rest.length ? { line2: rest.join(' ') } : line1 === undefined && sent.line2 ? { line2: sent.line2 } : {}),
    city: c.PoliticalDivision2 ?? sent.city,
    ...(c.PoliticalDivision1 ? { state: c.PoliticalDivision1 } : {}),
    postcode: c.PostcodePrimaryLow ? joinZip(c.PostcodePrimaryLow, c.PostcodeExtendedLow) : sent.postcode,
  });
}

function oneLine(a: Address): string {
  return [a.line1, a.line2, a.city, [a.state, a.postcode].filter(Boolean).join(' ')].filter(Boolean).join(', ');
}

function residential(code: string | undefined): boolean | null {
  return code === '2' ? true : code === '1' ? false : null;
}

function refusal(message: string): CarrierError {
  return new CarrierError('definitive', message, { carrierCode: 'ups' });
}
