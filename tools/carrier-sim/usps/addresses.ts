import { simCheckAddress, type SimMatchedAddress } from '../address-rules.js';
import type { UspsDesk, UspsReply } from './desk.js';

/**
 * The USPS simulator's Addresses API (`addresses.yaml`): `GET /addresses/v3/address`, the address in
 * the query string, checked against the document's parameters. A match is an `AddressResponse` with
 * the ZIP+4, DPV confirmed and the business flag; no match is a 404 `ErrorMessage` in the words of
 * the document's examples. The rules are the shared ones (`../address-rules.ts`).
 */

/** The document's example 404s: no match, and more than one address. */
const NO_MATCH = 'There is no match for the address requested.';
const MULTIPLE = 'More than one address was found matching the requested address.';

export function standardizeAddress(desk: UspsDesk, query: URLSearchParams): UspsReply {
  const params: Record<string, string> = {};
  for (const [key, value] of query) {
    if (key in params) return desk.error(400, `The query parameter ${key} is given twice`, key);
    params[key] = value;
  }
  // The document's rule beside its schema, in its words.
  if (!params.city && !params.ZIPCode) return desk.error(400, 'Must specify a street address, a state, and either a city or a ZIP Code.', 'city');
  const outcome = simCheckAddress({
    lines: [params.streetAddress, ...(params.secondaryAddress ? [params.secondaryAddress] : [])],
    city: params.city,
    state: params.state,
    zip: params.ZIPCode,
  });
  if (outcome.kind === 'none') return notFound(desk, NO_MATCH);
  if (outcome.kind === 'ambiguous') return notFound(desk, MULTIPLE);
  return desk.reply(200, addressResponse(outcome.address, params.firm));
}

function notFound(desk: UspsDesk, message: string): UspsReply {
  return desk.reply(404, { apiVersion: 'v3', error: { code: '404', message, errors: [] } });
}

function addressResponse(a: SimMatchedAddress, firm: string | undefined) {
  return {
    ...(firm ? { firm: firm.toUpperCase() } : {}),
    address: {
      streetAddress: a.line1,
      streetAddressAbbreviation: a.line1,
      ...(a.line2 ? { secondaryAddress: a.line2 } : {}),
      city: a.city,
      cityAbbreviation: a.city,
      state: a.state,
      ZIPCode: a.zip,
      ZIPPlus4: a.plus4,
    },
    additionalInfo: {
      deliveryPoint: a.plus4.slice(2),
      carrierRoute: 'C001',
      DPVConfirmation: 'Y',
      DPVCMRA: 'N',
      business: a.commercial ? 'Y' : 'N',
      centralDeliveryPoint: 'N',
      vacant: 'N',
    },
    corrections: [],
    matches: [{ code: '31', text: 'Single Response - exact match' }],
    warnings: [],
  };
}
