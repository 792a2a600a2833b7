import type { FastifyPluginAsync, FastifyBaseLogger } from 'fastify';
import { ADDRESS_VERIFIERS, CarrierError, type AddressVerification, type CarrierDefinition } from '../../carriers/index.js';
import { ApiError, CODE, normalizeAddress, type Address } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { RESPONSES } from '../response-schemas.js';
import { AddressSchema, type AddressInput } from '../schemas.js';
import { carrierFailure, liveAdapter } from '../services/carrier-ops.js';

/**
 * `POST /addresses/verify` (contract: International, returns, address checks, options): a US or
 * Puerto Rico address checked by USPS's Addresses API, or by UPS's Address Validation when USPS is
 * not enabled or does not answer. A no-match is an answer (`verified: false`); a country no enabled
 * carrier checks is 422 `verification_not_available`. A sandbox key asks no carrier.
 */

type Verifier = (typeof ADDRESS_VERIFIERS)[number];

/**
 * The sandbox's one rule: an address whose first line holds the word UNDELIVERABLE (a whole word,
 * in any case) is not verified; every other is, as sent.
 */
const UNDELIVERABLE = /\bundeliverable\b/i;

/** The enabled carriers that check addresses of this country, in the contract's order. */
function verifiersFor(ctx: AppContext, country: string): Array<CarrierDefinition & { code: Verifier }> {
  const found = [];
  for (const code of ADDRESS_VERIFIERS) {
    const definition = ctx.catalog.definitions.find((d) => d.code === code);
    if (definition?.capabilities.addressVerification?.includes(country)) found.push({ ...definition, code });
  }
  return found;
}

function notAvailable(country: string): ApiError {
  return new ApiError(CODE.verification_not_available, `No enabled carrier checks addresses in ${country}: US and Puerto Rico addresses are checked, by USPS or UPS.`);
}

function sandboxCheck(address: Address): AddressVerification {
  if (!UNDELIVERABLE.test(address.line1)) return { verified: true, address, residential: null, messages: [] };
  return {
    verified: false,
    address,
    residential: null,
    messages: [{ code: 'address_not_found', message: 'Sandbox: the first address line holds the word UNDELIVERABLE, so the address is not verified.' }],
  };
}

/** Whether a carrier failure is the adapter's own refusal, before anything was sent (an address it cannot take whole). */
const refusedBeforeSending = (error: unknown) => error instanceof CarrierError && error.kind === 'definitive' && error.details.status === undefined;

/**
 * Asks each carrier in turn until one answers. When none does, a failure at a carrier is the answer
 * (502 or 503); when every carrier refused the address before sending it, no enabled carrier can
 * check it: 422 `verification_not_available`, naming why.
 */
async function liveCheck(ctx: AppContext, log: FastifyBaseLogger, address: Address, verifiers: ReadonlyArray<{ code: Verifier }>) {
  const failures: unknown[] = [];
  for (const { code } of verifiers) {
    const adapter = liveAdapter(ctx, code);
    if (!adapter.verifyAddress) continue;
    try {
      return { carrier: code, check: await adapter.verifyAddress(address) };
    } catch (error) {
      failures.push(error);
      // Operators see why a carrier was passed over; the customer sees the one that answered.
      log.warn({ carrier: code, kind: error instanceof CarrierError ? error.kind : 'error', err: error instanceof Error ? error.message : String(error) }, 'address check failed at the carrier');
    }
  }
  const atCarrier = failures.filter((f) => !refusedBeforeSending(f));
  if (atCarrier.length) return carrierFailure(atCarrier[atCarrier.length - 1]);
  if (failures.length === 0) throw notAvailable(address.country);
  const reasons = failures.map((f) => (f as CarrierError).message).join('; ');
  throw new ApiError(CODE.verification_not_available, `No enabled carrier can check this address as it is: ${reasons}.`);
}

function verificationToJson(check: AddressVerification, carrier: Verifier, livemode: boolean) {
  const a = check.address;
  return {
    object: 'address_verification' as const,
    livemode,
    verified: check.verified,
    address: { name: a.name, line1: a.line1, line2: a.line2 ?? null, city: a.city, state: a.state ?? null, postcode: a.postcode, country: a.country },
    residential: check.residential,
    carrier,
    messages: check.messages.map((m) => ({ code: m.code, message: m.message })),
  };
}

/**
 * Checks an address that passed `AddressSchema`, for a sandbox or a live caller: the API's
 * `POST /addresses/verify` and the portal's "Check address" buttons (api/web/) both answer with it.
 */
export async function verifyAddress(ctx: AppContext, livemode: boolean, body: AddressInput, log: FastifyBaseLogger) {
  const { address, errors } = normalizeAddress(body, '');
  if (errors.length) {
    const named = errors.map((e) => ({ ...e, path: e.path.replace(/^\./, '') }));
    throw new ApiError(CODE.validation_failed, 'The request has invalid fields; see errors.', { errors: named });
  }
  const verifiers = verifiersFor(ctx, address.country);
  if (verifiers.length === 0) throw notAvailable(address.country);
  if (!livemode) return verificationToJson(sandboxCheck(address), verifiers[0].code, false);
  const { carrier, check } = await liveCheck(ctx, log, address, verifiers);
  return verificationToJson(check, carrier, true);
}

export const addressVerifyRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post<{ Body: AddressInput }>(
      '/addresses/verify',
      {
        config: { scope: 'addresses:read' },
        schema: { body: AddressSchema, summary: 'Check an address with the carrier (US and Puerto Rico)', operationId: 'verifyAddress', response: RESPONSES.verifyAddress },
      },
      async (request) => verifyAddress(ctx, callerOf(request).livemode, request.body, request.log),
    );
  };
