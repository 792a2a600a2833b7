/**
 * The SCAN Forms API (`scan-forms.yaml`, `POST /scan-forms/v3/scan-form`): the request with a list of
 * tracking numbers (`LabelShipment`), and the answer asked for with `application/vnd.usps.labels+json`
 * (`SCANFormVendorResponse`: the metadata and the form's image in base64).
 */
import { Type, type Static } from '@sinclair/typebox';
import { FULL_DATE, STATE_PATTERN, closed, open } from './schemas-common.js';

export const USPS_SCAN_FORM_IMAGE_TYPES = ['PDF', 'TIFF', 'JPG', 'PNG', 'GIF', 'SVG', 'ZPL203DPI', 'ZPL300DPI', 'NONE'] as const;
export const USPS_ENTRY_FACILITY_TYPES = [
  'NONE',
  'DESTINATION_NETWORK_DISTRIBUTION_CENTER',
  'DESTINATION_REGIONAL_PROCESSING_DISTRIBUTION_CENTER',
  'DESTINATION_SECTIONAL_CENTER_FACILITY',
  'DESTINATION_DELIVERY_UNIT',
  'DESTINATION_SERVICE_HUB',
] as const;

/** `SCANFormAddress`: a domestic address; first and last name or firm (the document's note). */
export const UspsScanFormAddress = Type.Object(
  {
    firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    lastName: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    firm: Type.Optional(Type.String({ minLength: 0, maxLength: 50 })),
    streetAddress: Type.String({ minLength: 1, maxLength: 50 }),
    secondaryAddress: Type.Optional(Type.String({ maxLength: 50 })),
    city: Type.String({ minLength: 1, maxLength: 28 }),
    state: Type.String({ minLength: 2, maxLength: 2, pattern: STATE_PATTERN }),
    ZIPCode: Type.String({ pattern: '^\\d{5}$' }),
    ZIPPlus4: Type.Optional(Type.String({ pattern: '^\\d{4}$' })),
    ignoreBadAddress: Type.Optional(Type.Boolean()),
  },
  { ...closed, anyOf: [{ required: ['firm'] }, { required: ['firstName', 'lastName'] }] },
);

/** `SCANFormRequest` with a `LabelShipment`: the labels named by tracking number. */
export const UspsScanFormRequest = Type.Object(
  {
    imageInfo: Type.Optional(
      Type.Object(
        {
          imageType: Type.Optional(Type.Union(USPS_SCAN_FORM_IMAGE_TYPES.map((t) => Type.Literal(t)))),
          labelType: Type.Optional(Type.Union([Type.Literal('8.5X11LABEL'), Type.Literal('4X6LABEL')])),
        },
        closed,
      ),
    ),
    mailingDate: Type.String({ pattern: FULL_DATE }),
    overwriteMailingDate: Type.Optional(Type.Boolean()),
    entryFacilityZIPCode: Type.String({ pattern: '^\\d{5}$' }),
    destinationEntryFacilityType: Type.Union(USPS_ENTRY_FACILITY_TYPES.map((t) => Type.Literal(t))),
    shipment: Type.Object({ trackingNumbers: Type.Array(Type.String(), { minItems: 1, maxItems: 40_000 }) }, closed),
    fromAddress: UspsScanFormAddress,
  },
  closed,
);
export type UspsScanFormRequest = Static<typeof UspsScanFormRequest>;

/** `SCANFormVendorResponse`: the metadata beside `SCANFormImage` (absent when `imageType` is NONE). */
export const UspsScanFormVendorResponse = Type.Object(
  {
    imageInfo: Type.Optional(Type.Object({ imageType: Type.Optional(Type.String()), labelType: Type.Optional(Type.String()) }, open)),
    mailingDate: Type.Optional(Type.String()),
    entryFacilityZIPCode: Type.Optional(Type.String()),
    destinationEntryFacilityType: Type.Optional(Type.String()),
    manifestNumber: Type.Optional(Type.String()),
    trackingNumbers: Type.Optional(Type.Array(Type.String())),
    SCANFormImage: Type.Optional(Type.String()),
  },
  open,
);
export type UspsScanFormVendorResponse = Static<typeof UspsScanFormVendorResponse>;
