import { CONTENTS_TYPES, crossesBorder, parseAmount, unsupportedOption, type Address, type Parcel, type ShipmentOptions } from '../../../domain/index.js';
import type { ServiceDefinition } from '../../../carriers/index.js';
import { SimHttpError } from '../sim-types.js';
import { countryCode, positiveInteger, requiredString } from '../validate.js';

/** What Acme's API v2 checks of a label's terms: customs across borders only, options its service offers. */

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Acme wants a declaration on every international label, with 1 to 30 lines no heavier than the parcel. */
export function checkCustoms(body: Record<string, unknown>, from: Address, to: Address, parcel: Parcel): void {
  const customs = body.customs;
  const abroad = crossesBorder(from, to);
  if (customs === undefined || customs === null) {
    if (abroad) throw new SimHttpError(422, 'customs_required', 'An international label needs customs.');
    return;
  }
  if (!abroad) throw new SimHttpError(422, 'customs_not_allowed', 'A domestic label takes no customs.');
  if (!isRecord(customs)) throw new SimHttpError(400, 'invalid_request', 'customs must be an object.');
  const contents = requiredString(customs, 'contents_type', 'customs.contents_type');
  if (!(CONTENTS_TYPES as readonly string[]).includes(contents)) throw new SimHttpError(400, 'invalid_request', `customs.contents_type ${contents} is not one Acme knows.`);
  if (contents === 'other') requiredString(customs, 'contents_explanation', 'customs.contents_explanation');
  requiredString(customs, 'signer', 'customs.signer');
  const currency = requiredString(customs, 'currency', 'customs.currency');
  if (!/^[A-Z]{3}$/.test(currency)) throw new SimHttpError(400, 'invalid_request', 'customs.currency must be an ISO 4217 code.');
  const items = customs.items;
  if (!Array.isArray(items) || items.length < 1 || items.length > 30) throw new SimHttpError(400, 'invalid_request', 'customs.items must hold 1 to 30 lines.');
  let weight = 0;
  items.forEach((item: unknown, i) => {
    const path = `customs.items[${i}]`;
    if (!isRecord(item)) throw new SimHttpError(400, 'invalid_request', `${path} must be an object.`);
    requiredString(item, 'description', `${path}.description`);
    positiveInteger(item, 'quantity', `${path}.quantity`);
    const value = parseAmount(requiredString(item, 'value', `${path}.value`));
    if (value === null || value <= 0) throw new SimHttpError(400, 'invalid_request', `${path}.value must be an amount more than zero.`);
    weight += positiveInteger(item, 'weight_g', `${path}.weight_g`);
    countryCode(item, 'origin_country', `${path}.origin_country`);
  });
  if (weight > parcel.weight_g) throw new SimHttpError(422, 'customs_weight_exceeds_parcel', 'The customs lines weigh more than the parcel.');
}

/** The options of a label, each one the service offers (422 `option_not_offered` otherwise). */
export function checkOptions(body: Record<string, unknown>, service: ServiceDefinition): ShipmentOptions | undefined {
  const options = body.options;
  if (options === undefined || options === null) return undefined;
  if (!isRecord(options)) throw new SimHttpError(400, 'invalid_request', 'options must be an object.');
  const unknown = Object.keys(options).filter((k) => !['signature', 'declared_value', 'saturday_delivery'].includes(k));
  if (unknown.length) throw new SimHttpError(400, 'invalid_request', `options.${unknown[0]} is not an option Acme knows.`);
  const refused = unsupportedOption(service.options, options as ShipmentOptions);
  if (refused) throw new SimHttpError(422, 'option_not_offered', `${service.name} does not offer ${refused}.`);
  return options as ShipmentOptions;
}

/** `is_return`, when sent, is a boolean. */
export function isReturnOf(body: Record<string, unknown>): boolean {
  const value = body.is_return;
  if (value !== undefined && typeof value !== 'boolean') throw new SimHttpError(400, 'invalid_request', 'is_return must be a boolean.');
  return value === true;
}
