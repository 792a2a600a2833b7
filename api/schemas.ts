import { Type, type Static } from '@sinclair/typebox';
import { MAX_ADDRESS_FIELD, PARCEL_LIMITS, SHIPMENT_STATUSES } from '../domain/index.js';

/**
 * The request schemas: they validate requests and, through @fastify/swagger, make the OpenAPI
 * document, so the two are never written twice.
 */

/** The control characters, as a character class's body: C0, DEL and C1 (Unicode category Cc). */
export const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f';
// Printable text: no control characters, and something other than white space (it is trimmed).
const TEXT = `^[^${CONTROL_CHARACTERS}]*[^\\s${CONTROL_CHARACTERS}][^${CONTROL_CHARACTERS}]*$`;
/** Text without control characters, blank allowed. */
export const OPTIONAL_TEXT = `^[^${CONTROL_CHARACTERS}]*$`;

/** Two letters (ISO 3166-1 alpha-2); case-folded to upper case once valid. */
export const COUNTRY_CODE = '^\\s*[A-Za-z]{2}\\s*$';
/**
 * A subdivision code's shape (ISO 3166-2 without the country prefix): 1 to 3 letters or digits,
 * blank allowed (then absent). Whether US and CA need one, and which codes they take, is
 * domain/address.ts's check.
 */
export const STATE_CODE = '^\\s*([A-Za-z0-9]{1,3}\\s*)?$';
/**
 * The format (api/validation.ts) that checks two letters are an assigned code, in the same pass as
 * every other field, so one 422 lists every bad field (contract: Errors) and not the country alone
 * after the rest is fixed.
 */
export const COUNTRY_FORMAT = 'iso-3166-1-alpha-2';
/** `?created_after=`'s forms (domain/iso-time.ts), checked in the schema's pass for the same reason. */
export const INSTANT_FORMAT = 'iso-8601-instant';
/**
 * A list's cursor (api/pagination.ts), checked in the schema's pass for the same reason: one format
 * per list, by the prefix of the ids it pages through (api/validation.ts decodes it as the route does).
 */
export const CURSOR_FORMATS = {
  shp: 'shipment-cursor',
  evt: 'event-cursor',
  adr: 'address-cursor',
  we: 'webhook-endpoint-cursor',
  whd: 'webhook-delivery-cursor',
} as const;
export type CursorPrefix = keyof typeof CURSOR_FORMATS;

const text = (description: string, maxLength = MAX_ADDRESS_FIELD) =>
  Type.String({ minLength: 1, maxLength, pattern: TEXT, description });

export const AddressSchema = Type.Object(
  {
    name: text('Contact name'),
    line1: text('First address line'),
    line2: Type.Optional(Type.String({ maxLength: MAX_ADDRESS_FIELD, pattern: OPTIONAL_TEXT, description: 'Second line' })),
    city: text('City'),
    state: Type.Optional(
      Type.String({
        maxLength: MAX_ADDRESS_FIELD,
        pattern: STATE_CODE,
        description:
          'ISO 3166-2 subdivision code without the country prefix (`NY`, `ON`), 1 to 3 letters or digits; upper-cased. Required for US and CA addresses, where it must be one of that country\'s states, territories or provinces',
      }),
    ),
    postcode: text('Postcode'),
    country: Type.String({ pattern: COUNTRY_CODE, format: COUNTRY_FORMAT, description: 'ISO 3166-1 alpha-2 country code' }),
  },
  { additionalProperties: false },
);
export type AddressInput = Static<typeof AddressSchema>;

const dimension = (description: string, max: number) => Type.Integer({ minimum: 1, maximum: max, description });

export const ParcelSchema = Type.Object(
  {
    weight_g: dimension('Weight in grams', PARCEL_LIMITS.maxWeightG),
    length_mm: dimension('Length in millimetres', PARCEL_LIMITS.maxSideMm),
    width_mm: dimension('Width in millimetres', PARCEL_LIMITS.maxSideMm),
    height_mm: dimension('Height in millimetres', PARCEL_LIMITS.maxSideMm),
  },
  { additionalProperties: false },
);

export const QuoteRequestSchema = Type.Object(
  { from: AddressSchema, to: AddressSchema, parcel: ParcelSchema },
  { additionalProperties: false },
);
export type QuoteRequest = Static<typeof QuoteRequestSchema>;

export const BuyRequestSchema = Type.Object(
  {
    service: Type.String({ minLength: 1, maxLength: 100, pattern: TEXT, description: 'A service code from a quote' }),
    from: AddressSchema,
    to: AddressSchema,
    parcel: ParcelSchema,
    reference: Type.Optional(Type.String({ maxLength: 100, pattern: OPTIONAL_TEXT, description: 'Your own order reference' })),
  },
  { additionalProperties: false },
);
export type BuyRequest = Static<typeof BuyRequestSchema>;

export const ShipmentParams = Type.Object({ shipment: Type.String() }, { additionalProperties: false });

/** `?limit` and `?cursor` of a list of the ids with this prefix. */
export const pageQueryOf = (prefix: CursorPrefix) => ({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, format: CURSOR_FORMATS[prefix] })),
});

export const ListShipmentsQuery = Type.Object(
  {
    ...pageQueryOf('shp'),
    status: Type.Optional(Type.Union(SHIPMENT_STATUSES.map((s) => Type.Literal(s)))),
    reference: Type.Optional(Type.String({ maxLength: 100 })),
    created_after: Type.Optional(
      Type.String({
        maxLength: 40,
        format: INSTANT_FORMAT,
        description:
          'ISO 8601: a date (midnight UTC) or a date and time with its offset, e.g. 2026-11-24, 2026-11-24T10:00Z, 2026-11-24T10:00:00.000+01:00',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListShipmentsQuery = Static<typeof ListShipmentsQuery>;

/** The query of a list with no filter: `?limit` and `?cursor`. */
export const pageQueryFor = (prefix: CursorPrefix) => Type.Object(pageQueryOf(prefix), { additionalProperties: false });
export type PageQuery = Static<ReturnType<typeof pageQueryFor>>;
