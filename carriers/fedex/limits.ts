/**
 * The limits FedEx's documents state in words (their schemas carry almost none), written once: the
 * address checks, the mapping and the simulator read them. Each names where it is said.
 */
export const FEDEX_LIMITS = {
  /** Ship `streetLines`: "Max Length is 35"; Pickup: "streetlines more than 3 will be ignored". */
  streetLine: 35,
  streetLines: 3,
  /** Ship `city`: "Max length is 35" (the schema's maxLength too). */
  city: 35,
  /** Ship `personName`: "Maximum length is 70". */
  personName: 70,
  /** Ship `companyName`: "Max length is 35". */
  companyName: 35,
  /** Ship `emailAddress`: "Maximum length is 80". */
  email: 80,
  /** Ship `postalCode`: "Maximum length is 10". */
  postalCode: 10,
  /** Ship `phoneNumber`: "Minimum length is 10 and supports maximum of 15"; US and CA exactly 10 digits. */
  phoneMin: 10,
  phoneMax: 15,
  /** Money `amount`: "Maximum limit is 5 digits before decimal" (the declared value). */
  maxDeclaredMinor: 9_999_999,
  /** Dimensions: "Maximum value: 999" of each side, in whole units. */
  maxDimension: 999,
  /** Pickup `remarks`: "Maximum length is 60 characters". */
  pickupRemarks: 60,
  /** Pickup contact `phoneNumber`: "Minimum Length is 8 and Maximum legth is 13". */
  pickupPhoneMin: 8,
  pickupPhoneMax: 13,
  /** Commercial invoice `termsOfSale`: "Max length is 3". */
  termsOfSale: 3,
  /** `customerReferences` values: CUSTOMER_REFERENCE "40(Express), 30(Ground)", INVOICE_NUMBER 30 (our shipment ids have 30). */
  reference: 30,
  invoiceNumber: 30,
  /** 150 lb and 165 in length plus girth: FedEx's parcel limits for Express and Ground. */
  maxWeightG: 68_038,
  maxLengthPlusGirthMm: 4_191,
} as const;
