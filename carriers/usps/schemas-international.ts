/**
 * USPS schemas of the international documents (international-prices, international-labels) and of
 * the extra-service price searches (domestic-prices and international-prices), for the fields we
 * send and read. Requests are closed, answers open (schemas.ts says why).
 */
import { Type, type Static } from '@sinclair/typebox';
import { closed, FULL_DATE, open, Positive, PriceType, ProcessingCategory, STATE_PATTERN, UspsFee, ZIP_OR_ZIP4 } from './schemas-common.js';

/** The international mail classes we sell (international-prices and international-labels `mailClass`). */
export const USPS_INTERNATIONAL_MAIL_CLASSES = ['PRIORITY_MAIL_INTERNATIONAL', 'PRIORITY_MAIL_EXPRESS_INTERNATIONAL', 'FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE'] as const;
const IntlMailClass = Type.Union(USPS_INTERNATIONAL_MAIL_CLASSES.map((c) => Type.Literal(c)));
const IntlRateIndicator = Type.Union([Type.Literal('SP'), Type.Literal('PA')]);
const COUNTRY = '^[A-Z]{2}$';
/** `Phone`: digits only, with an optional leading plus. */
export const USPS_PHONE_PATTERN = '^\\+?[1-9][0-9]{7,14}$|^[0-9]{6,15}$';

/** International `BaseRatesQuery` (closed in the document). */
export const UspsIntlBaseRatesQuery = Type.Object(
  {
    originZIPCode: Type.String({ pattern: ZIP_OR_ZIP4 }),
    foreignPostalCode: Type.Optional(Type.String({ minLength: 1 })),
    destinationCountryCode: Type.String({ pattern: COUNTRY }),
    weight: Positive('pounds'),
    length: Positive('inches'),
    width: Positive('inches'),
    height: Positive('inches'),
    mailClass: IntlMailClass,
    processingCategory: ProcessingCategory,
    rateIndicator: IntlRateIndicator,
    destinationEntryFacilityType: Type.Literal('NONE'),
    priceType: PriceType,
    mailingDate: Type.Optional(Type.String({ pattern: FULL_DATE })),
    accountType: Type.Optional(Type.Literal('EPS')),
    accountNumber: Type.Optional(Type.String({ pattern: '^\\d+$' })),
  },
  closed,
);
export type UspsIntlBaseRatesQuery = Static<typeof UspsIntlBaseRatesQuery>;

/** The extra services we ask for: 921 signature, 922 adult signature, 981 PME signature, 930/931 insurance. */
export const USPS_EXTRA_SERVICE_CODES = [921, 922, 930, 931, 981] as const;
const ExtraServiceCode = Type.Union(USPS_EXTRA_SERVICE_CODES.map((c) => Type.Literal(c)));

/** Domestic `ExtraServiceRateQuery` (the array form; closed in the document). */
export const UspsExtraServiceRateQuery = Type.Object(
  {
    extraServices: Type.Array(ExtraServiceCode, { minItems: 1 }),
    mailClass: Type.String({ minLength: 1 }),
    priceType: PriceType,
    itemValue: Type.Optional(Type.Number({ minimum: 0 })),
    weight: Positive('pounds'),
    originZIPCode: Type.String({ pattern: ZIP_OR_ZIP4 }),
    destinationZIPCode: Type.String({ pattern: ZIP_OR_ZIP4 }),
    mailingDate: Type.Optional(Type.String({ pattern: FULL_DATE })),
    accountType: Type.Optional(Type.Literal('EPS')),
    accountNumber: Type.Optional(Type.String({ pattern: '^\\d+$' })),
  },
  closed,
);
export type UspsExtraServiceRateQuery = Static<typeof UspsExtraServiceRateQuery>;

/** International `ExtraServiceRateQuery` (closed): `itemValue` is a string there. */
export const UspsIntlExtraServiceRateQuery = Type.Object(
  {
    extraServices: Type.Array(Type.Union([Type.Literal(930), Type.Literal(931)]), { minItems: 1 }),
    mailClass: IntlMailClass,
    priceType: Type.Union([Type.Literal('RETAIL'), Type.Literal('COMMERCIAL')]),
    itemValue: Type.Optional(Type.String({ pattern: '^\\d+(\\.\\d{1,2})?$' })),
    weight: Positive('pounds'),
    mailingDate: Type.Optional(Type.String({ pattern: FULL_DATE })),
    rateIndicator: IntlRateIndicator,
    destinationCountryCode: Type.String({ pattern: COUNTRY }),
    accountType: Type.Optional(Type.Literal('EPS')),
    accountNumber: Type.Optional(Type.String({ pattern: '^\\d+$' })),
  },
  closed,
);
export type UspsIntlExtraServiceRateQuery = Static<typeof UspsIntlExtraServiceRateQuery>;

const ExtraServicePrice = Type.Object(
  { extraService: Type.Optional(Type.Union([Type.String(), Type.Integer()])), name: Type.Optional(Type.String()), SKU: Type.Optional(Type.String()), price: Type.Number({ minimum: 0 }) },
  open,
);
/** Domestic `ExtraServiceRateDetails`: an array. */
export const UspsExtraServiceRateDetails = Type.Array(ExtraServicePrice);
/** International `ExtraServiceRateDetails`: an object holding the array. */
export const UspsIntlExtraServiceRateDetails = Type.Object({ extraServices: Type.Array(ExtraServicePrice) }, open);

/** `InternationalLabelAddress`, as we fill it (names go to `firm`, as domestically). */
export const UspsIntlLabelAddress = Type.Object(
  {
    firm: Type.String({ minLength: 1, maxLength: 50 }),
    streetAddress: Type.String({ minLength: 1, maxLength: 50 }),
    secondaryAddress: Type.Optional(Type.String({ maxLength: 50 })),
    city: Type.String({ minLength: 1, maxLength: 28 }),
    postalCode: Type.Optional(Type.String({ maxLength: 11 })),
    province: Type.Optional(Type.String({ maxLength: 40 })),
    country: Type.String({ minLength: 1 }),
    countryISOAlpha2Code: Type.String({ pattern: COUNTRY }),
    phone: Type.Optional(Type.String({ pattern: USPS_PHONE_PATTERN })),
  },
  closed,
);

/** `DomesticLabelAddress` with the contact fields the international label takes. */
export const UspsIntlFromAddress = Type.Object(
  {
    firm: Type.String({ minLength: 1, maxLength: 50 }),
    streetAddress: Type.String({ minLength: 1, maxLength: 50 }),
    secondaryAddress: Type.Optional(Type.String({ maxLength: 50 })),
    city: Type.String({ minLength: 1, maxLength: 28 }),
    state: Type.String({ pattern: STATE_PATTERN }),
    ZIPCode: Type.String({ pattern: '^\\d{5}$' }),
    ZIPPlus4: Type.Optional(Type.String({ pattern: '^\\d{4}$' })),
    phone: Type.Optional(Type.String({ pattern: USPS_PHONE_PATTERN })),
    email: Type.Optional(Type.String({ maxLength: 50, pattern: '^[a-zA-Z0-9_+&*-]+(?:\\.[a-zA-Z0-9_+&*-]+)*@(?:[a-zA-Z0-9-]+\\.)+[a-zA-Z]{2,}$' })),
  },
  closed,
);

export const USPS_CUSTOMS_CONTENT_TYPES = ['MERCHANDISE', 'GIFT', 'DOCUMENT', 'COMMERCIAL_SAMPLE', 'RETURNED_GOODS', 'OTHER'] as const;

/** `InternationalShippingContents`, with the total value and weight (the per-item fields are deprecated). */
export const UspsShippingContents = Type.Object(
  {
    itemDescription: Type.String({ minLength: 1, maxLength: 30 }),
    itemQuantity: Type.Integer({ minimum: 1, maximum: 9999 }),
    itemTotalValue: Type.Number({ minimum: 0.01, maximum: 999999.99 }),
    weightUOM: Type.Literal('lb'),
    itemTotalWeight: Type.Number({ exclusiveMinimum: 0 }),
    HSTariffNumber: Type.Optional(Type.String({ minLength: 6, maxLength: 14 })),
    countryofOrigin: Type.String({ pattern: COUNTRY }),
  },
  closed,
);

/** `InternationalCustomsForm` (closed in the document). */
export const UspsCustomsForm = Type.Object(
  {
    customsContentType: Type.Union(USPS_CUSTOMS_CONTENT_TYPES.map((t) => Type.Literal(t))),
    contentComments: Type.Optional(Type.String({ maxLength: 25 })),
    AESITN: Type.String({ minLength: 1, maxLength: 35 }),
    invoiceNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 15 })),
    importersReference: Type.Optional(Type.Object({ referenceType: Type.Union([Type.Literal('TAX_CODE'), Type.Literal('VAT_NUMBER'), Type.Literal('IMPORTER_CODE')]), reference: Type.String({ minLength: 1, maxLength: 28 }) }, closed)),
    exportersReference: Type.Optional(Type.Object({ referenceType: Type.Union([Type.Literal('TAX_CODE'), Type.Literal('VAT_NUMBER'), Type.Literal('IMPORTER_CODE')]), reference: Type.String({ minLength: 1, maxLength: 28 }) }, closed)),
    contents: Type.Array(UspsShippingContents, { minItems: 1, maxItems: 30 }),
  },
  closed,
);
export type UspsCustomsForm = Static<typeof UspsCustomsForm>;

/** `InternationalLabelRequest` (closed in the document). */
export const UspsIntlLabelRequest = Type.Object(
  {
    imageInfo: Type.Object({ imageType: Type.Union([Type.Literal('PDF'), Type.Literal('ZPL203DPI')]), labelType: Type.Literal('4X6LABEL') }, closed),
    toAddress: UspsIntlLabelAddress,
    fromAddress: UspsIntlFromAddress,
    packageDescription: Type.Object(
      {
        mailClass: IntlMailClass,
        rateIndicator: IntlRateIndicator,
        weightUOM: Type.Literal('lb'),
        weight: Type.Number({ exclusiveMinimum: 0, maximum: 70 }),
        dimensionsUOM: Type.Literal('in'),
        length: Positive('inches'),
        width: Positive('inches'),
        height: Positive('inches'),
        processingCategory: ProcessingCategory,
        destinationEntryFacilityType: Type.Literal('NONE'),
        mailingDate: Type.String({ pattern: FULL_DATE }),
        packageOptions: Type.Optional(Type.Object({ packageValue: Type.Optional(Type.Number({ minimum: 0 })), nonDeliveryOption: Type.Optional(Type.Union([Type.Literal('RETURN'), Type.Literal('ABANDON')])) }, closed)),
        customerReference: Type.Optional(Type.Array(Type.Object({ referenceNumber: Type.String({ minLength: 1, maxLength: 30 }) }, closed), { maxItems: 2 })),
        extraServices: Type.Optional(Type.Array(Type.Union([Type.Literal(930), Type.Literal(931)]), { maxItems: 3 })),
      },
      closed,
    ),
    customsForm: UspsCustomsForm,
  },
  closed,
);
export type UspsIntlLabelRequest = Static<typeof UspsIntlLabelRequest>;

/** `InternationalLabelVendorResponse`: the metadata and the image (label and customs pages) in one object. */
export const UspsIntlLabelVendorResponse = Type.Object(
  {
    internationalTrackingNumber: Type.String({ minLength: 13, maxLength: 13 }),
    constructCode: Type.Optional(Type.String()),
    SKU: Type.Optional(Type.String()),
    postage: Type.Optional(Type.Number()),
    extraServices: Type.Optional(Type.Array(Type.Object({ serviceID: Type.Optional(Type.String()), serviceName: Type.Optional(Type.String()), price: Type.Optional(Type.Number()) }, open))),
    internationalPriceGroup: Type.Optional(Type.String()),
    mailingDate: Type.Optional(Type.String()),
    fees: Type.Optional(Type.Array(UspsFee)),
    labelImage: Type.String({ minLength: 1 }),
  },
  open,
);
export type UspsIntlLabelVendorResponse = Static<typeof UspsIntlLabelVendorResponse>;

/** International `LabelReprintRequest`: the image types we take again, the label PDF or its ZPL. */
export const UspsIntlLabelReprintRequest = Type.Object(
  { imageInfo: Type.Object({ imageType: Type.Union([Type.Literal('PDF'), Type.Literal('ZPL203DPI')]), labelType: Type.Literal('4X6LABEL') }, closed) },
  closed,
);
export type UspsIntlLabelReprintRequest = Static<typeof UspsIntlLabelReprintRequest>;

/** `LabelReprintInternationalResponse` (closed in the document; its metadata open). */
export const UspsIntlLabelReprintResponse = Type.Object(
  {
    labelMetadata: Type.Object({ internationalTrackingNumber: Type.String({ minLength: 13, maxLength: 13 }) }, open),
    labelImage: Type.String({ minLength: 1 }),
    reprintInfo: Type.Optional(Type.Object({ reprintNumber: Type.Optional(Type.Integer()), reprintLimit: Type.Optional(Type.Integer()) }, closed)),
  },
  closed,
);

/** The return mail classes (domestic-prices `MailClass`, domestic-labels returns `mailClass`). */
export const USPS_RETURN_MAIL_CLASSES = ['USPS_GROUND_ADVANTAGE_RETURN_SERVICE', 'PRIORITY_MAIL_RETURN_SERVICE', 'PRIORITY_MAIL_EXPRESS_RETURN_SERVICE'] as const;
const ReturnMailClass = Type.Union(USPS_RETURN_MAIL_CLASSES.map((c) => Type.Literal(c)));
const DomesticExtra = Type.Union([921, 922, 930, 931, 981].map((c) => Type.Literal(c)));

/** The label address of a return (`DomesticLabelAddress`, the fields we fill). */
const UspsReturnAddress = Type.Object(
  {
    firm: Type.String({ minLength: 1, maxLength: 50 }),
    streetAddress: Type.String({ minLength: 1, maxLength: 50 }),
    secondaryAddress: Type.Optional(Type.String({ maxLength: 50 })),
    city: Type.String({ minLength: 1, maxLength: 28 }),
    state: Type.String({ pattern: STATE_PATTERN }),
    ZIPCode: Type.String({ pattern: '^\\d{5}$' }),
    ZIPPlus4: Type.Optional(Type.String({ pattern: '^\\d{4}$' })),
  },
  closed,
);

/** `ReturnLabelRequest` with `ReturnsPackageDescription` (closed in the document). */
export const UspsReturnLabelRequest = Type.Object(
  {
    imageInfo: Type.Object({ imageType: Type.Union(['PDF', 'PNG', 'GIF', 'ZPL203DPI'].map((t) => Type.Literal(t))), labelType: Type.Literal('4X6LABEL'), receiptOption: Type.Literal('NONE') }, closed),
    toAddress: UspsReturnAddress,
    fromAddress: UspsReturnAddress,
    packageDescription: Type.Object(
      {
        mailClass: ReturnMailClass,
        rateIndicator: Type.Union([Type.Literal('SP'), Type.Literal('PA')]),
        processingCategory: ProcessingCategory,
        weightUOM: Type.Literal('lb'),
        weight: Type.Number({ exclusiveMinimum: 0, maximum: 70 }),
        dimensionsUOM: Type.Literal('in'),
        length: Positive('inches'),
        width: Positive('inches'),
        height: Positive('inches'),
        customerReference: Type.Optional(Type.Array(Type.Object({ referenceNumber: Type.String({ minLength: 1, maxLength: 30 }) }, closed), { maxItems: 4 })),
        extraServices: Type.Optional(Type.Array(DomesticExtra, { maxItems: 5 })),
        packageOptions: Type.Optional(Type.Object({ packageValue: Type.Number({ minimum: 0 }) }, closed)),
      },
      closed,
    ),
  },
  closed,
);
export type UspsReturnLabelRequest = Static<typeof UspsReturnLabelRequest>;

/** `ReturnLabelVendorResponse`: the metadata with `returnLabelImage`. */
export const UspsReturnLabelVendorResponse = Type.Object(
  {
    trackingNumber: Type.String({ minLength: 1 }),
    postage: Type.Optional(Type.Number()),
    extraServices: Type.Optional(Type.Array(Type.Object({ name: Type.Optional(Type.String()), SKU: Type.Optional(Type.String()), price: Type.Optional(Type.Number()) }, open))),
    returnLabelImage: Type.String({ minLength: 1 }),
  },
  open,
);
