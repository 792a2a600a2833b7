/** UPS schema pieces every operation shares: the documents' limits, the OAuth token, the error body. */
import { Type, type Static } from '@sinclair/typebox';

export const closed = { additionalProperties: false } as const;
export const str = (minLength: number, maxLength: number, extra: object = {}) => Type.String({ minLength, maxLength, ...extra });
/** UPS's "empty tag" indicators: presence means yes, the value is ignored. */
export const indicator = () => Type.String();

/** The limits the documents give, used by the address checks and the schemas alike. */
export const UPS_LIMITS = {
  name: 35,
  attentionName: 35,
  addressLine: 35,
  addressLines: 3,
  city: 30,
  /** Rating allows 2, Shipping 5: an address must pass both, a quote and its purchase. */
  stateRating: 2,
  stateShipping: 5,
  postalCode: 9,
  countryCode: 2,
  shipperNumber: 6,
  referenceValue: 35,
  /** Shipping `Package.Dimensions`: whole numbers of at most 3 digits; Length ≤ 108 IN / 270 CM. */
  maxLength: { IN: 108, CM: 270 },
  /** Length + 2 × (Width + Height) ≤ 165 IN / 330 CM. */
  maxLengthPlusGirth: { IN: 165, CM: 330 },
  /** Shipping `PackageWeight.Weight` is at most 5 characters. */
  weightChars: 5,
  /** Shipping phones: digits only, at most 15. */
  phone: 15,
  email: 50,
  /** Shipment `Description` (of goods), required abroad. */
  description: 50,
  productDescription: 35,
  partNumber: 35,
  invoiceNumber: 35,
  reasonForExport: 20,
  /** Rating's `DeclaredValue.MonetaryValue` is exactly 8 characters: `99999.99` at most. */
  ratingDeclaredValue: 8,
} as const;

// ---------------------------------------------------------------- OAuth

/** `POST /security/v1/oauth/token` (form body). `expires_in` is a string of seconds per the document. */
export const TokenRequest = Type.Object({ grant_type: Type.Literal('client_credentials') }, closed);
export const TokenResponse = Type.Object({
  token_type: Type.Optional(Type.String()),
  issued_at: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  access_token: Type.String({ minLength: 1 }),
  scope: Type.Optional(Type.String()),
  expires_in: Type.String({ pattern: '^\\d+$' }),
  refresh_count: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
});
export type TokenResponse = Static<typeof TokenResponse>;

// ---------------------------------------------------------------- Errors

/** Every UPS API answers an error as `{ response: { errors: [{ code, message }] } }`. */
export const UpsErrorBody = Type.Object({
  response: Type.Object({
    errors: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
  }),
});
export type UpsErrorBody = Static<typeof UpsErrorBody>;

// ---------------------------------------------------------------- Shared pieces

export const TransactionReference = Type.Object({ CustomerContext: str(1, 512) }, closed);
export const AddressLines = Type.Array(str(1, UPS_LIMITS.addressLine), { minItems: 1, maxItems: UPS_LIMITS.addressLines });
export const Money = (max = 19) => Type.Object({ CurrencyCode: str(3, 3), MonetaryValue: str(1, max) });
export const ResponseStatus = Type.Object({ Code: str(1, 1), Description: str(1, 35) });
export const CodeDescription = (codeMin: number, codeMax: number, descriptionRequired: boolean) =>
  Type.Object(
    { Code: str(codeMin, codeMax), Description: descriptionRequired ? str(1, 35) : Type.Optional(str(1, 35)) },
    closed,
  );
