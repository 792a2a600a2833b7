import {
  ApiError,
  CODE,
  customsProblems,
  normalizeAddress,
  normalizeCustoms,
  optionProblems,
  requestedOptions,
  unsupportedOption,
  type Address,
  type Customs,
  type CustomsInput,
  type FieldError,
  type Parcel,
  type ShipmentOptions,
} from '../../domain/index.js';
import type { Catalog } from '../catalog.js';
import type { AddressInput } from '../schemas.js';

/** A shipment's route and terms as a purchase or a quote keeps them: trimmed, defaults filled. */
export interface ShipmentTermsOf {
  from: Address;
  to: Address;
  /** Only across a border (a purchase there always has it). */
  customs?: Customs;
  /** The options asked for; absent when none. */
  options?: ShipmentOptions;
  isReturn: boolean;
}

interface TermsBody {
  from: AddressInput;
  to: AddressInput;
  parcel: Parcel;
  customs?: CustomsInput;
  options?: ShipmentOptions;
  is_return?: boolean;
}

/**
 * Trims and checks a purchase's or a quote's addresses, customs and options together, so one 422
 * lists every problem the schema could not state: an unknown country, customs missing across a
 * border (a purchase only) or sent on a domestic route, lines heavier than the parcel.
 */
export function shipmentTerms(body: TermsBody, accountCurrency: string, kind: 'purchase' | 'quote'): ShipmentTermsOf {
  const a = normalizeAddress(body.from, 'from');
  const b = normalizeAddress(body.to, 'to');
  const errors: FieldError[] = [
    ...a.errors,
    ...b.errors,
    ...customsProblems({ customs: body.customs, from: a.address, to: b.address, parcel: body.parcel, purchase: kind === 'purchase' }),
    ...optionProblems(body.options),
  ];
  if (errors.length) throw new ApiError(CODE.validation_failed, 'The request has invalid fields; see errors.', { errors });
  const options = requestedOptions(body.options);
  return {
    from: a.address,
    to: b.address,
    ...(body.customs ? { customs: normalizeCustoms(body.customs, accountCurrency) } : {}),
    ...(Object.keys(options).length ? { options } : {}),
    isReturn: body.is_return === true,
  };
}

/**
 * A purchase of a service that cannot honour one of its options is refused before anything starts
 * (contract: Options): 422 `option_not_supported`, naming the option and the service. An unknown
 * service is left to the purchase, which answers service_not_available.
 */
export function checkOptions(catalog: Catalog, serviceCode: string, options: ShipmentOptions | undefined, isReturn = false): void {
  for (const carrier of catalog.definitions) {
    const service = carrier.services.find((s) => s.code === serviceCode);
    if (!service) continue;
    const option = unsupportedOption(isReturn ? (service.returnOptions ?? service.options) : service.options, options);
    if (option) {
      const label = isReturn ? ' on a return label' : '';
      throw new ApiError(CODE.option_not_supported, `${service.name} (${service.code}) cannot honour ${option}${label}; nothing was bought or charged.`, {
        errors: [{ path: option, message: `is not offered by ${service.code}` }],
      });
    }
    return;
  }
}
