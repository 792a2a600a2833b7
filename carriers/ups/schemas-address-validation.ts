/**
 * Address Validation - Street Level (`AddressValidation.yaml`, `POST /addressvalidation/v2/{requestoption}`):
 * the `XAVRequest` with one `AddressKeyFormat`, and the `XAVResponse` with its indicators (valid,
 * ambiguous, no candidates), the address classification and the candidates. As elsewhere, UPS puts
 * `AddressLine`'s item length and count on the array; here they sit on the items and `maxItems`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { closed, str } from './schemas-common.js';

/** What our request's `AddressKeyFormat` may hold: the document's fields, each with its lengths. */
export const XAVRequestAddress = Type.Object(
  {
    ConsigneeName: Type.Optional(str(1, 40)),
    AttentionName: Type.Optional(str(1, 40)),
    AddressLine: Type.Optional(Type.Array(str(1, 100), { maxItems: 3 })),
    Region: Type.Optional(str(1, 100)),
    PoliticalDivision2: Type.Optional(str(1, 30)),
    PoliticalDivision1: Type.Optional(str(1, 30)),
    PostcodePrimaryLow: Type.Optional(str(1, 10)),
    PostcodeExtendedLow: Type.Optional(str(1, 10)),
    Urbanization: Type.Optional(str(1, 30)),
    CountryCode: str(2, 2),
  },
  closed,
);

export const XAVRequestWrapper = Type.Object({ XAVRequest: Type.Object({ AddressKeyFormat: XAVRequestAddress }, closed) }, closed);
export type XAVRequestWrapper = Static<typeof XAVRequestWrapper>;

const Classification = Type.Object({ Code: str(1, 1), Description: str(1, 15) });

/** A candidate's `AddressKeyFormat`: the standardized address, its lines, city, state and ZIP+4. */
export const XAVCandidateAddress = Type.Object({
  ConsigneeName: Type.Optional(str(1, 40)),
  AttentionName: Type.Optional(str(1, 40)),
  AddressLine: Type.Optional(Type.Array(str(1, 100), { maxItems: 3 })),
  Region: Type.Optional(str(1, 100)),
  PoliticalDivision2: Type.Optional(str(1, 30)),
  PoliticalDivision1: Type.Optional(str(1, 30)),
  PostcodePrimaryLow: Type.Optional(str(1, 10)),
  PostcodeExtendedLow: Type.Optional(str(1, 10)),
  Urbanization: Type.Optional(str(1, 30)),
  CountryCode: str(2, 2),
});
export type XAVCandidateAddress = Static<typeof XAVCandidateAddress>;

export const XAVResponseWrapper = Type.Object({
  XAVResponse: Type.Object({
    Response: Type.Object({
      ResponseStatus: Type.Object({ Code: str(1, 1), Description: str(1, 35) }),
      Alert: Type.Optional(Type.Array(Type.Object({ Code: str(1, 10), Description: str(1, 150) }))),
      TransactionReference: Type.Optional(Type.Object({ CustomerContext: Type.Optional(str(1, 512)) })),
    }),
    ValidAddressIndicator: Type.Optional(Type.String()),
    AmbiguousAddressIndicator: Type.Optional(Type.String()),
    NoCandidatesIndicator: Type.Optional(Type.String()),
    AddressClassification: Type.Optional(Classification),
    Candidate: Type.Optional(Type.Array(Type.Object({ AddressClassification: Type.Optional(Classification), AddressKeyFormat: XAVCandidateAddress }))),
  }),
});
export type XAVResponseWrapper = Static<typeof XAVResponseWrapper>;
