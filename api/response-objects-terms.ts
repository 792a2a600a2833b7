import { Type } from '@sinclair/typebox';
import { CONTENTS_TYPES, INCOTERMS, NON_DELIVERY, SIGNATURE_OPTIONS, TAX_ID_OWNERS, TAX_ID_TYPES } from '../domain/index.js';
import { closed, literals, livemode, money, nullable, timestamp } from './response-primitives.js';

/** The response schemas of a shipment's terms: its addresses and parcel, customs, options and paperwork. */

const optional = Type.Optional;

/** An address as a shipment carries it: the fields given, trimmed (the optional ones absent when not given). */
export const ShipmentAddress = Type.Object(
  {
    name: Type.String(),
    line1: Type.String(),
    line2: optional(Type.String()),
    city: Type.String(),
    state: optional(Type.String({ description: 'ISO 3166-2 subdivision code without the country prefix' })),
    postcode: Type.String(),
    country: Type.String({ description: 'ISO 3166-1 alpha-2, upper case' }),
    company: optional(Type.String()),
    phone: optional(Type.String()),
    email: optional(Type.String()),
  },
  { ...closed, $id: 'ShipmentAddress' },
);

export const Parcel = Type.Object(
  { weight_g: Type.Integer(), length_mm: Type.Integer(), width_mm: Type.Integer(), height_mm: Type.Integer() },
  { ...closed, $id: 'Parcel' },
);

export const Customs = Type.Object(
  {
    contents_type: literals(CONTENTS_TYPES),
    contents_explanation: nullable(Type.String()),
    non_delivery: literals(NON_DELIVERY),
    incoterm: literals(INCOTERMS),
    signer: Type.String(),
    eel_pfc: optional(Type.String()),
    tax_ids: optional(Type.Array(Type.Object({ type: literals(TAX_ID_TYPES), number: Type.String(), owner: literals(TAX_ID_OWNERS) }, closed))),
    invoice_number: optional(Type.String()),
    currency: Type.String({ description: "ISO 4217: the items' values' currency" }),
    items: Type.Array(
      Type.Object(
        {
          description: Type.String(),
          quantity: Type.Integer(),
          value: money("The line's total value"),
          weight_g: Type.Integer(),
          hs_tariff_number: optional(Type.String()),
          origin_country: Type.String(),
          sku: optional(Type.String()),
        },
        closed,
      ),
    ),
  },
  { ...closed, $id: 'Customs', description: 'As the purchase gave it, with the defaults filled' },
);

export const ShipmentOptions = Type.Object(
  {
    signature: optional(literals(SIGNATURE_OPTIONS)),
    declared_value: optional(Type.String({ description: "In the account's currency" })),
    saturday_delivery: optional(Type.Boolean()),
  },
  { ...closed, $id: 'ShipmentOptions', description: 'The options asked for; empty when none' },
);

export const ShipmentDocument = Type.Object(
  {
    object: Type.Literal('shipment_document'),
    livemode,
    type: Type.Literal('commercial_invoice'),
    format: Type.Literal('pdf'),
    url: Type.String({ format: 'uri', description: 'Signed URL; works without the key until expires_at' }),
    expires_at: timestamp('When the URL stops working'),
  },
  { ...closed, $id: 'ShipmentDocument' },
);
