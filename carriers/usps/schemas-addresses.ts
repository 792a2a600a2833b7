/**
 * The Addresses API (`addresses.yaml` 3.2.3, under `/addresses/v3`): address standardization,
 * `GET /address` with the address in the query string, answered by an `AddressResponse` (the
 * standardized address, its ZIP+4, the delivery point's DPV and business flags) or, for an address
 * it cannot match, a 404 `ErrorMessage`. The query is closed to the parameters the document lists;
 * `AddressResponse` and `AddressAdditionalInfo` are closed as the document says, the address itself
 * open (`DomesticAddress`, `additionalProperties: true`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { STATE_PATTERN, closed, open } from './schemas-common.js';

const YesNo = Type.Union([Type.Literal('Y'), Type.Literal('N')]);

/** The query parameters of `GET /address`: a street address, a state, and a city or a ZIP Code. */
export const UspsAddressQuery = Type.Object(
  {
    firm: Type.Optional(Type.String({ minLength: 0, maxLength: 50 })),
    streetAddress: Type.String(),
    secondaryAddress: Type.Optional(Type.String()),
    city: Type.Optional(Type.String()),
    state: Type.String({ minLength: 2, maxLength: 2, pattern: STATE_PATTERN }),
    urbanization: Type.Optional(Type.String()),
    ZIPCode: Type.Optional(Type.String({ pattern: '^\\d{5}$' })),
    ZIPPlus4: Type.Optional(Type.String({ pattern: '^\\d{4}$' })),
  },
  { ...closed, anyOf: [{ required: ['city'] }, { required: ['ZIPCode'] }] },
);
export type UspsAddressQuery = Static<typeof UspsAddressQuery>;

/** `DomesticAddress`: `Address` and the US fields (the document's ZIP patterns are unanchored). */
export const UspsDomesticAddress = Type.Object(
  {
    streetAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    streetAddressAbbreviation: Type.Optional(Type.String({ minLength: 0, maxLength: 50 })),
    secondaryAddress: Type.Optional(Type.String({ maxLength: 50 })),
    cityAbbreviation: Type.Optional(Type.String()),
    city: Type.Optional(Type.String({ minLength: 1, maxLength: 28 })),
    state: Type.Optional(Type.String({ minLength: 2, maxLength: 2, pattern: STATE_PATTERN })),
    ZIPCode: Type.Optional(Type.String({ pattern: '\\d{5}' })),
    ZIPPlus4: Type.Optional(Type.Union([Type.String({ pattern: '\\d{4}' }), Type.Null()])),
    urbanization: Type.Optional(Type.String({ maxLength: 96 })),
  },
  open,
);

/** `AddressAdditionalInfo`: the delivery point and its DPV confirmation, CMRA, business, central and vacant flags. */
export const UspsAddressAdditionalInfo = Type.Object(
  {
    deliveryPoint: Type.Optional(Type.String()),
    carrierRoute: Type.Optional(Type.String({ minLength: 0, maxLength: 5 })),
    DPVConfirmation: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('D'), Type.Literal('S'), Type.Literal('N')])),
    DPVCMRA: Type.Optional(YesNo),
    business: Type.Optional(YesNo),
    centralDeliveryPoint: Type.Optional(YesNo),
    vacant: Type.Optional(YesNo),
  },
  closed,
);

/** `AddressCorrections` and `AddressMatches` items: a two-character code and its text. */
const CodeText = Type.Object({ code: Type.Optional(Type.String({ minLength: 1, maxLength: 2, pattern: '\\w{2}' })), text: Type.Optional(Type.String()) }, closed);

export const UspsAddressResponse = Type.Object(
  {
    firm: Type.Optional(Type.String({ minLength: 0, maxLength: 50 })),
    address: Type.Optional(UspsDomesticAddress),
    additionalInfo: Type.Optional(UspsAddressAdditionalInfo),
    corrections: Type.Optional(Type.Array(CodeText)),
    matches: Type.Optional(Type.Array(CodeText)),
    warnings: Type.Optional(Type.Array(Type.String())),
  },
  closed,
);
export type UspsAddressResponse = Static<typeof UspsAddressResponse>;
