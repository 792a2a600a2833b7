import { Type, type Static } from '@sinclair/typebox';
import { CARRIER_MODULES, REAL_CARRIER_MODULES } from '../carriers/index.js';
import {
  BATCH_MAX_ITEMS,
  CONTENTS_TYPES,
  COUNTRY_CODES,
  CUSTOMS_LIMITS,
  INCOTERMS,
  NON_DELIVERY,
  SIGNATURE_OPTIONS,
  TAX_ID_OWNERS,
  TAX_ID_TYPES,
} from '../domain/index.js';
import { AddressSchema, COUNTRY_CODE, COUNTRY_FORMAT, LabelFormatSchema, OPTIONAL_TEXT, ParcelSchema, PHONE_FIELD_PATTERN, text } from './schemas.js';

/**
 * The shipment's terms beyond two addresses and a box (contract: International, returns, address
 * checks, options): customs, options and returns, and the purchase and quote bodies that carry them.
 */

const literals = <T extends string>(values: readonly T[], description: string) => Type.Union(values.map((v) => Type.Literal(v)), { description });

/**
 * A money string more than zero, with at most two decimal places (domain/money.ts reads it). Digits
 * are `[0-9]`: `\d` is any Unicode digit to some readers of the document.
 */
export const POSITIVE_MONEY = '^(?!0(?:\\.0{1,2})?$)(?:0|[1-9][0-9]{0,12})(?:\\.[0-9]{1,2})?$';

/**
 * Every service code of every carrier this build knows (the carrier registry's modules), so the
 * document lists what a purchase can name; a carrier not enabled in a deployment answers
 * `service_not_available` for its codes.
 */
export const SERVICE_CODES = [...CARRIER_MODULES, ...REAL_CARRIER_MODULES].flatMap((m) => m.definition.services.map((s) => s.code));

const country = (description: string) => Type.String({ pattern: COUNTRY_CODE, enum: [...COUNTRY_CODES], format: COUNTRY_FORMAT, description });

export const CustomsItemSchema = Type.Object(
  {
    description: text('What the line is, in plain words', CUSTOMS_LIMITS.maxDescription),
    quantity: Type.Integer({ minimum: 1, maximum: 100_000, description: 'How many pieces' }),
    value: Type.String({ pattern: POSITIVE_MONEY, maxLength: 16, description: "The line's total value in the declaration's currency, more than zero (\"30.00\")" }),
    weight_g: Type.Integer({ minimum: 1, maximum: 70_000, description: "The line's total weight in grams; the lines together weigh at most the parcel's weight_g" }),
    hs_tariff_number: Type.Optional(Type.String({ pattern: CUSTOMS_LIMITS.hsPattern, description: 'Harmonized System tariff number, 6 to 10 digits' })),
    origin_country: country('Where the goods were made: ISO 3166-1 alpha-2, folded to capitals'),
    sku: Type.Optional(Type.String({ maxLength: 100, pattern: OPTIONAL_TEXT, description: 'Your stock-keeping unit' })),
  },
  { additionalProperties: false },
);

export const TaxIdSchema = Type.Object(
  {
    type: literals(TAX_ID_TYPES, 'eori, vat, ioss, ein or other'),
    number: text('The number as issued', 50),
    owner: literals(TAX_ID_OWNERS, 'Whose number it is'),
  },
  { additionalProperties: false },
);

export const CustomsSchema = Type.Object(
  {
    contents_type: literals(CONTENTS_TYPES, 'What the parcel holds'),
    contents_explanation: Type.Optional(
      Type.Union([Type.String({ maxLength: CUSTOMS_LIMITS.maxExplanation, pattern: OPTIONAL_TEXT }), Type.Null()], { description: 'Required when contents_type is other; at most 25 characters' }),
    ),
    non_delivery: Type.Optional(literals(NON_DELIVERY, 'What the carrier does with an undeliverable parcel (default return)')),
    incoterm: Type.Optional(literals(INCOTERMS, 'Who pays duties: DDU the recipient (default), DDP the sender')),
    signer: text('Who certifies the declaration', CUSTOMS_LIMITS.maxSigner),
    eel_pfc: Type.Optional(Type.String({ maxLength: 50, pattern: OPTIONAL_TEXT, description: 'US export exemption (NOEEI 30.37(a)) or AES ITN' })),
    tax_ids: Type.Optional(Type.Array(TaxIdSchema, { maxItems: 10 })),
    invoice_number: Type.Optional(Type.String({ maxLength: 35, pattern: OPTIONAL_TEXT, description: 'Your invoice number' })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: "ISO 4217 currency of the items' values; the account's when left out" })),
    items: Type.Array(CustomsItemSchema, { minItems: 1, maxItems: CUSTOMS_LIMITS.maxItems, description: '1 to 30 lines' }),
  },
  {
    additionalProperties: false,
    description: 'Required when from.country and to.country differ, refused when they are the same',
    // Said in the schema, so the document states it and one 422 lists it beside every other bad field.
    allOf: [
      {
        if: { properties: { contents_type: { const: 'other' } }, required: ['contents_type'] },
        then: { required: ['contents_explanation'], properties: { contents_explanation: { type: 'string', minLength: 1 } } },
      },
    ],
  },
);

export const OptionsSchema = Type.Object(
  {
    signature: Type.Optional(literals(SIGNATURE_OPTIONS, 'A signature on delivery: anyone’s (required) or an adult’s')),
    declared_value: Type.Optional(Type.String({ pattern: POSITIVE_MONEY, maxLength: 16, description: "The parcel's declared value in the account's currency" })),
    saturday_delivery: Type.Optional(Type.Boolean({ description: 'Deliver on a Saturday' })),
  },
  { additionalProperties: false, description: 'A service that cannot honour one is left out of a quote and refused by a purchase (option_not_supported)' },
);

const terms = {
  customs: Type.Optional(CustomsSchema),
  is_return: Type.Optional(Type.Boolean({ description: 'A return label: from is the customer sending the parcel back, to where it returns' })),
  options: Type.Optional(OptionsSchema),
};

export const QuoteRequestSchema = Type.Object({ from: AddressSchema, to: AddressSchema, parcel: ParcelSchema, ...terms }, { additionalProperties: false });
export type QuoteRequest = Static<typeof QuoteRequestSchema>;

export const PurchaseRequestSchema = Type.Object(
  {
    service: Type.String({ enum: SERVICE_CODES, description: 'A service code from a quote' }),
    from: AddressSchema,
    to: AddressSchema,
    parcel: ParcelSchema,
    reference: Type.Optional(Type.String({ maxLength: 100, pattern: OPTIONAL_TEXT, description: 'Your own order reference' })),
    ...terms,
  },
  { additionalProperties: false },
);
export type PurchaseRequest = Static<typeof PurchaseRequestSchema>;

/**
 * A batch's item (contract: Batches): exactly a `POST /shipments` body, customs, options and
 * `is_return` included, so one schema error anywhere refuses the batch with its path. Only the
 * service is any code here: whether it exists is decided per item (`service_not_available`).
 */
export const BatchItemSchema = Type.Object(
  { ...PurchaseRequestSchema.properties, service: text('A service code from a quote', 100) },
  { additionalProperties: false },
);
export type BatchItem = Static<typeof BatchItemSchema>;

/** `POST /batches`: 1 to 1,000 purchase bodies, and the merged label file's format. */
export const CreateBatchSchema = Type.Object(
  {
    shipments: Type.Array(BatchItemSchema, { minItems: 1, maxItems: BATCH_MAX_ITEMS, description: 'Each item is a POST /shipments body' }),
    label_format: Type.Optional({ ...LabelFormatSchema, description: 'The format of the merged label file (default pdf_6x4)' }),
  },
  { additionalProperties: false },
);
export type CreateBatch = Static<typeof CreateBatchSchema>;

/** `POST /shipments/{shipment}/return`: another service than the original's, or the same when left out. */
export const ReturnRequestSchema = Type.Object(
  { service: Type.Optional(Type.String({ enum: SERVICE_CODES, description: "A service code; the original shipment's when left out" })) },
  { additionalProperties: false },
);
export type ReturnRequest = Static<typeof ReturnRequestSchema>;

/** What a broken pattern of these schemas means, in the 422's words (api/problem.ts). */
export const PATTERN_MESSAGES: ReadonlyMap<string, string> = new Map([
  [POSITIVE_MONEY, 'must be an amount more than zero with at most two decimal places, such as 30.00'],
  [CUSTOMS_LIMITS.hsPattern, 'must be 6 to 10 digits'],
  ['^[A-Z]{3}$', 'must be an ISO 4217 currency code, such as GBP'],
  [PHONE_FIELD_PATTERN, 'must be at most 20 digits, spaces and + ( ) -, with a digit'],
]);
