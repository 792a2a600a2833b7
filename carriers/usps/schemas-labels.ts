/** USPS domestic labels schemas (`/labels/v3`): purchase, reprint and cancel. */
import { Type, type Static } from '@sinclair/typebox';
import { closed, FULL_DATE, MailClass, open, Positive, ProcessingCategory, RateIndicator, STATE_PATTERN, UspsFee } from './schemas-common.js';

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
    // 921 signature, 922 adult signature, 981 Priority Mail Express signature, 930/931 insurance.
    extraServices: Type.Optional(Type.Array(Type.Union([921, 922, 930, 931, 981].map((c) => Type.Literal(c))), { minItems: 1, maxItems: 5 })),
    packageOptions: Type.Optional(Type.Object({ packageValue: Type.Number({ minimum: 0 }) }, closed)),
    physicalSignatureRequired: Type.Optional(Type.Boolean()),
  },
  closed,
);

/** `LabelRequest` (closed in the document itself). */
export const UspsLabelRequest = Type.Object(
  { imageInfo: UspsImageInfo, toAddress: UspsLabelAddress, fromAddress: UspsLabelAddress, packageDescription: UspsPackageDescription },
  closed,
);
export type UspsLabelRequest = Static<typeof UspsLabelRequest>;

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
