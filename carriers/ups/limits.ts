/**
 * The limits UPS's documents give, written once: the address checks and the mapping read them (the
 * generated schemas hold them too, where the documents put them in a schema).
 */
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
