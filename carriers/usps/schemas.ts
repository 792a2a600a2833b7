import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Our schemas of the USPS v3 APIs, for exactly the operations and fields we use, written from the
 * published documents (payments, domestic-prices, domestic-labels, tracking; the OAuth token as the
 * getting-started guide describes it). Field names are spelled as USPS spells them.
 *
 * Requests are closed (`additionalProperties: false`) even where the document leaves an object open:
 * the point of validating what we send is that we send only what the document defines. Responses
 * stay as open as the document says, so a field USPS adds later is no error.
 */

const closed = { additionalProperties: false } as const;
const open = { additionalProperties: true } as const;

// ---- Shared pieces -------------------------------------------------------------------------------

/** The two-letter state codes the labels and tracking documents list (states, DC, territories, APO/FPO/DPO). */
export const USPS_STATE_CODES = [
  'AA', 'AE', 'AL', 'AK', 'AP', 'AS', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'DC', 'FM', 'FL', 'GA', 'GU', 'HI', 'ID', 'IL',
  'IN', 'IA', 'KS', 'KY', 'LA', 'ME', 'MH', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MP', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM',
  'NY', 'NC', 'ND', 'OH', 'OK', 'OR', 'PW', 'PA', 'PR', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VI', 'VA', 'WA', 'WV',
  'WI', 'WY',
] as const;
const STATE_PATTERN = `^(${USPS_STATE_CODES.join('|')})$`;

/** The mail classes we sell (domestic-prices `MailClass`, domestic-labels `mailClass`). */
export const USPS_MAIL_CLASSES = ['USPS_GROUND_ADVANTAGE', 'PRIORITY_MAIL', 'PRIORITY_MAIL_EXPRESS'] as const;
const MailClass = Type.Union(USPS_MAIL_CLASSES.map((c) => Type.Literal(c)));
const ProcessingCategory = Type.Union([Type.Literal('MACHINABLE'), Type.Literal('NONSTANDARD')]);
/** `SP` single piece (Ground Advantage, Priority Mail), `PA` Priority Mail Express single piece. */
const RateIndicator = Type.Union([Type.Literal('SP'), Type.Literal('PA')]);
const PriceType = Type.Union([Type.Literal('RETAIL'), Type.Literal('COMMERCIAL'), Type.Literal('CONTRACT')]);
const ZIP_OR_ZIP4 = '^\\d{5}(?:[-\\s]\\d{4})?$';
const MID_PATTERN = '^(\\d{6}|\\d{9})$';
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** RFC 3339 full-date, as `MailingDate` is (`format: date`). */
const FULL_DATE = '^\\d{4}-\\d{2}-\\d{2}$';
/** A positive decimal (`minimum: 0, exclusiveMinimum: true`). */
const Positive = (description: string) => Type.Number({ exclusiveMinimum: 0, description });

/** USPS's error body (`ErrorMessage`, the same in every v3 document). */
export const UspsErrorMessage = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    error: Type.Optional(
      Type.Object(
        {
          code: Type.Optional(Type.String()),
          message: Type.Optional(Type.String()),
          errors: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  status: Type.Optional(Type.String()),
                  code: Type.Optional(Type.String()),
                  title: Type.Optional(Type.String()),
                  detail: Type.Optional(Type.String()),
                  source: Type.Optional(Type.Object({ parameter: Type.Optional(Type.String()), example: Type.Optional(Type.String()) }, open)),
                },
                open,
              ),
            ),
          ),
        },
        open,
      ),
    ),
  },
  open,
);
export type UspsErrorMessage = Static<typeof UspsErrorMessage>;

// ---- OAuth 2.0 client credentials (`POST /oauth2/v3/token`) --------------------------------------

export const UspsTokenRequest = Type.Object(
  {
    grant_type: Type.Literal('client_credentials'),
    client_id: Type.String({ minLength: 1 }),
    client_secret: Type.String({ minLength: 1 }),
    scope: Type.Optional(Type.String()),
  },
  closed,
);
export type UspsTokenRequest = Static<typeof UspsTokenRequest>;

/** `expires_in` is seconds; USPS has sent it both as a number and as a string of digits. */
export const UspsTokenResponse = Type.Object(
  {
    access_token: Type.String({ minLength: 1 }),
    token_type: Type.Optional(Type.String()),
    expires_in: Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: '^\\s*\\d+\\s*$' })]),
    scope: Type.Optional(Type.String()),
  },
  open,
);
export type UspsTokenResponse = Static<typeof UspsTokenResponse>;

/** RFC 6749 §5.2 error answer of the token endpoint. */
export const UspsTokenError = Type.Object({ error: Type.String(), error_description: Type.Optional(Type.String()) }, open);

// ---- Payments (`POST /payments/v3/payment-authorization`) ----------------------------------------

const CRID = Type.String({ minLength: 2, maxLength: 18 });
export const UspsPaymentRole = Type.Object(
  {
    roleName: Type.Union([Type.Literal('PAYER'), Type.Literal('LABEL_OWNER')]),
    CRID,
    MID: Type.String({ pattern: MID_PATTERN }),
    manifestMID: Type.String({ pattern: MID_PATTERN }),
    accountType: Type.Optional(Type.Literal('EPS')),
    accountNumber: Type.Optional(Type.String({ minLength: 1 })),
  },
  closed,
);
export const UspsPaymentAuthorizationRequest = Type.Object({ roles: Type.Array(UspsPaymentRole, { minItems: 1 }) }, closed);
export type UspsPaymentAuthorizationRequest = Static<typeof UspsPaymentAuthorizationRequest>;

export const UspsPaymentAuthorizationResponse = Type.Object(
  { paymentAuthorizationToken: Type.String({ minLength: 1 }), roles: Type.Optional(Type.Array(Type.Object({}, open))) },
  open,
);
export type UspsPaymentAuthorizationResponse = Static<typeof UspsPaymentAuthorizationResponse>;

// ---- Domestic prices (`POST /prices/v3/base-rates/search`) ---------------------------------------

/** `BaseRatesQuery` (closed in the document itself): the fields it requires plus the contract-rate account. */
export const UspsBaseRatesQuery = Type.Object(
  {
    originZIPCode: Type.String({ pattern: ZIP_OR_ZIP4 }),
    destinationZIPCode: Type.String({ pattern: ZIP_OR_ZIP4 }),
    weight: Positive('pounds'),
    length: Positive('inches, the longest side'),
    width: Positive('inches, the second longest side'),
    height: Positive('inches'),
    mailClass: MailClass,
    processingCategory: ProcessingCategory,
    rateIndicator: RateIndicator,
    destinationEntryFacilityType: Type.Literal('NONE'),
    priceType: PriceType,
    mailingDate: Type.Optional(Type.String({ pattern: FULL_DATE })),
    accountType: Type.Optional(Type.Literal('EPS')),
    accountNumber: Type.Optional(Type.String({ pattern: '^\\d+$' })),
  },
  closed,
);
export type UspsBaseRatesQuery = Static<typeof UspsBaseRatesQuery>;

const UspsFee = Type.Object({ name: Type.Optional(Type.String()), SKU: Type.Optional(Type.String()), price: Type.Optional(Type.Number()) }, open);

/** `BaseRateOption`: `totalBasePrice` is the rate plus fees and pound postage. */
export const UspsBaseRateOption = Type.Object(
  {
    totalBasePrice: Type.Number({ minimum: 0 }),
    rates: Type.Optional(
      Type.Array(
        Type.Object(
          {
            SKU: Type.Optional(Type.String()),
            description: Type.Optional(Type.String()),
            priceType: Type.Optional(Type.String()),
            price: Type.Optional(Type.Number()),
            weight: Type.Optional(Type.Number()),
            dimWeight: Type.Optional(Type.Number()),
            fees: Type.Optional(Type.Array(UspsFee)),
            startDate: Type.Optional(Type.String()),
            endDate: Type.Optional(Type.String()),
            mailClass: Type.Optional(Type.String()),
            zone: Type.Optional(Type.String()),
            processingCategory: Type.Optional(Type.String()),
            rateIndicator: Type.Optional(Type.String()),
            destinationEntryFacilityType: Type.Optional(Type.String()),
            warnings: Type.Optional(Type.Array(Type.Object({}, open))),
          },
          open,
        ),
      ),
    ),
  },
  // The document closes `BaseRateOption`; it is an answer, so we read it as open all the same.
  open,
);
export type UspsBaseRateOption = Static<typeof UspsBaseRateOption>;

// ---- Domestic labels (`/labels/v3`) --------------------------------------------------------------

/** `DomesticLabelAddress` / `DomesticLabelToAddress`, limited to the fields we fill. */
export const UspsLabelAddress = Type.Object(
  {
    firm: Type.String({ minLength: 1, maxLength: 50 }),
    streetAddress: Type.String({ minLength: 1, maxLength: 50 }),
    secondaryAddress: Type.Optional(Type.String({ maxLength: 50 })),
    city: Type.String({ minLength: 1, maxLength: 28 }),
    state: Type.String({ minLength: 2, maxLength: 2, pattern: STATE_PATTERN }),
    ZIPCode: Type.String({ pattern: '^\\d{5}$' }),
    ZIPPlus4: Type.Optional(Type.String({ pattern: '^\\d{4}$' })),
  },
  closed,
);
export type UspsLabelAddress = Static<typeof UspsLabelAddress>;

/** The image types we ask for (`ImageInfo.imageType`), one per label format of ours. */
export const USPS_IMAGE_TYPES = ['PDF', 'PNG', 'GIF', 'ZPL203DPI'] as const;
const ImageType = Type.Union(USPS_IMAGE_TYPES.map((t) => Type.Literal(t)));

export const UspsImageInfo = Type.Object(
  { imageType: ImageType, labelType: Type.Literal('4X6LABEL'), receiptOption: Type.Literal('NONE') },
  closed,
);

/** `DomesticPackageDescription` (the variant with a rate indicator). */
export const UspsPackageDescription = Type.Object(
  {
    mailClass: MailClass,
    rateIndicator: RateIndicator,
    weightUOM: Type.Literal('lb'),
    weight: Type.Number({ exclusiveMinimum: 0, maximum: 70 }),
    dimensionsUOM: Type.Literal('in'),
    length: Positive('inches'),
    width: Positive('inches'),
    height: Positive('inches'),
    processingCategory: ProcessingCategory,
    destinationEntryFacilityType: Type.Literal('NONE'),
    mailingDate: Type.String({ pattern: FULL_DATE }),
    customerReference: Type.Optional(
      Type.Array(
        Type.Object({ referenceNumber: Type.String({ minLength: 1, maxLength: 30 }), printReferenceNumber: Type.Optional(Type.Boolean()) }, closed),
        { minItems: 0, maxItems: 4 },
      ),
    ),
  },
  closed,
);

/** `LabelRequest` (closed in the document itself). */
export const UspsLabelRequest = Type.Object(
  { imageInfo: UspsImageInfo, toAddress: UspsLabelAddress, fromAddress: UspsLabelAddress, packageDescription: UspsPackageDescription },
  closed,
);
export type UspsLabelRequest = Static<typeof UspsLabelRequest>;

/** The headers a label purchase carries besides the bearer token. */
export const UspsLabelHeaders = Type.Object(
  { 'x-payment-authorization-token': Type.String({ minLength: 1 }), 'x-idempotency-key': Type.String({ pattern: UUID_PATTERN }) },
  open,
);

const UspsCommitment = Type.Object(
  {
    name: Type.Optional(Type.String()),
    scheduleDeliveryDate: Type.Optional(Type.String()),
    expectedDeliveryDate: Type.Optional(Type.String()),
    isPriorityMailNextDay: Type.Optional(Type.Boolean()),
  },
  open,
);

/** `LabelMetadata`, the fields we read and the ones worth checking the type of. */
const labelMetadataFields = {
  labelAddress: Type.Optional(Type.Object({}, open)),
  routingInformation: Type.Optional(Type.String()),
  trackingNumber: Type.String({ minLength: 1 }),
  constructCode: Type.Optional(Type.String()),
  SKU: Type.Optional(Type.String()),
  postage: Type.Optional(Type.Number()),
  extraServices: Type.Optional(Type.Array(Type.Object({ name: Type.Optional(Type.String()), SKU: Type.Optional(Type.String()), price: Type.Optional(Type.Number()) }, open))),
  zone: Type.Optional(Type.String()),
  mailingDate: Type.Optional(Type.String()),
  commitment: Type.Optional(UspsCommitment),
  weightUOM: Type.Optional(Type.String()),
  weight: Type.Optional(Type.Number()),
  dimensionalWeight: Type.Optional(Type.Number()),
  fees: Type.Optional(Type.Array(UspsFee)),
};
export const UspsLabelMetadata = Type.Object(labelMetadataFields, open);
export type UspsLabelMetadata = Static<typeof UspsLabelMetadata>;

/** `LabelVendorResponse`: the answer to `Accept: application/vnd.usps.labels+json`. */
export const UspsLabelVendorResponse = Type.Object(
  { ...labelMetadataFields, labelImage: Type.String({ minLength: 1 }), receiptImage: Type.Optional(Type.String()) },
  open,
);
export type UspsLabelVendorResponse = Static<typeof UspsLabelVendorResponse>;

/** `LabelReprintRequest` (closed in the document) with `LabelReprintImageInfo`. */
export const UspsLabelReprintRequest = Type.Object(
  { imageInfo: Type.Object({ imageType: ImageType, labelType: Type.Literal('4X6LABEL') }, closed) },
  closed,
);
export type UspsLabelReprintRequest = Static<typeof UspsLabelReprintRequest>;

/** `LabelReprintDomesticOutboundResponse` (closed in the document). */
export const UspsLabelReprintResponse = Type.Object(
  {
    labelMetadata: UspsLabelMetadata,
    labelImage: Type.String({ minLength: 1 }),
    reprintInfo: Type.Optional(Type.Object({ reprintNumber: Type.Optional(Type.Integer()), reprintLimit: Type.Optional(Type.Integer()) }, closed)),
  },
  closed,
);
export type UspsLabelReprintResponse = Static<typeof UspsLabelReprintResponse>;

/** `CancelResponse`: `CANCELED` (no manifest yet) or `DISPUTED` (a refund request was submitted). */
export const UspsCancelResponse = Type.Object(
  {
    trackingNumber: Type.Optional(Type.String()),
    status: Type.Union([Type.Literal('CANCELED'), Type.Literal('DISPUTED')]),
    disputeId: Type.Optional(Type.String()),
  },
  open,
);
export type UspsCancelResponse = Static<typeof UspsCancelResponse>;

// ---- Tracking (`GET /tracking/v3/tracking/{trackingNumber}?expand=DETAIL`) -----------------------

export const UspsTrackingEvent = Type.Object(
  {
    eventType: Type.Optional(Type.String()),
    eventTimestamp: Type.Optional(Type.String()),
    GMTTimestamp: Type.Optional(Type.String()),
    GMTOffset: Type.Optional(Type.String()),
    eventCountry: Type.Optional(Type.String()),
    eventCity: Type.Optional(Type.String()),
    eventState: Type.Optional(Type.String()),
    eventZIP: Type.Optional(Type.String()),
    firm: Type.Optional(Type.String({ maxLength: 50 })),
    name: Type.Optional(Type.String()),
    authorizedAgent: Type.Optional(Type.Boolean()),
    eventCode: Type.Optional(Type.String()),
    actionCode: Type.Optional(Type.String()),
    reasonCode: Type.Optional(Type.String()),
  },
  open,
);
export type UspsTrackingEvent = Static<typeof UspsTrackingEvent>;

/** `TrackingDetails`: `trackingEvents` newest first, at most 99. */
export const UspsTrackingDetails = Type.Object(
  {
    trackingNumber: Type.Optional(Type.String()),
    mailClass: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    statusCategory: Type.Optional(Type.String()),
    statusSummary: Type.Optional(Type.String()),
    trackingEvents: Type.Optional(Type.Array(UspsTrackingEvent, { minItems: 0, maxItems: 99 })),
  },
  open,
);
export type UspsTrackingDetails = Static<typeof UspsTrackingDetails>;

/** Every schema by name, for a validator that compiles them once (tests, the simulator). */
export const USPS_SCHEMAS: Record<string, TSchema> = {
  UspsErrorMessage,
  UspsTokenRequest,
  UspsTokenResponse,
  UspsTokenError,
  UspsPaymentAuthorizationRequest,
  UspsPaymentAuthorizationResponse,
  UspsBaseRatesQuery,
  UspsBaseRateOption,
  UspsLabelRequest,
  UspsLabelHeaders,
  UspsLabelVendorResponse,
  UspsLabelReprintRequest,
  UspsLabelReprintResponse,
  UspsCancelResponse,
  UspsTrackingDetails,
};
