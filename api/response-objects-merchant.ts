import { Type } from '@sinclair/typebox';
import { ADDRESS_MESSAGE_CODES, ADDRESS_VERIFIERS, carriersWhere } from '../carriers/index.js';
import { BATCH_STATUSES, LABEL_FORMAT_LIST } from '../domain/index.js';
import { closed, literals, livemode, nullable, timestamp } from './response-primitives.js';

/** The response schemas of the merchant's day: batches, SCAN forms, pickups and their file links. */

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const Batch = Type.Object(
  {
    id: Type.String({ description: 'bat_…' }),
    object: Type.Literal('batch'),
    livemode,
    status: literals(BATCH_STATUSES, 'processing while any item is pending; completed once every item is purchased or failed and the merged label file is made'),
    label_format: literals(LABEL_FORMAT_LIST, 'The format of the merged label file'),
    counts: Type.Object(
      {
        total: count('Items in the batch'),
        pending: count('Items whose purchase is under way'),
        purchased: count('Items whose label was bought'),
        failed: count('Items that failed (each shipment carries its failure); nothing was bought or charged for them'),
      },
      closed,
    ),
    created_at: timestamp('When the batch was created'),
    completed_at: nullable(timestamp('When the last item ended and the merged label file was made')),
  },
  { ...closed, $id: 'Batch' },
);

export const ScanForm = Type.Object(
  {
    id: Type.String({ description: 'sf_…' }),
    object: Type.Literal('scan_form'),
    livemode,
    carrier: Type.String({ description: `The carrier whose form it is: ${carriersWhere((c) => c.scanForms).join(', ')}` }),
    shipment_ids: Type.Array(Type.String(), { description: 'The shipments on the form, as listed' }),
    created_at: timestamp('When the form was made'),
  },
  { ...closed, $id: 'ScanForm' },
);

export const Pickup = Type.Object(
  {
    id: Type.String({ description: 'pck_…' }),
    object: Type.Literal('pickup'),
    livemode,
    status: literals(['scheduled', 'cancelled'] as const),
    carrier: Type.String({ description: `The carrier that collects: ${carriersWhere((c) => c.pickups).join(', ')}` }),
    confirmation: Type.String({ description: "The carrier's confirmation number" }),
    price: nullable(Type.Ref('Price')),
    window: Type.Object({ start: timestamp('Ready from'), end: timestamp('Collected by') }, closed),
    created_at: timestamp('When it was booked'),
  },
  { ...closed, $id: 'Pickup' },
);

/** A signed link to a file that is not a label (a SCAN form): works without the key until it expires. */
export const FileLink = Type.Object(
  {
    object: Type.Literal('file_link'),
    livemode,
    url: Type.String({ format: 'uri', description: 'Signed URL; works without the key until expires_at' }),
    expires_at: timestamp('When the URL stops working'),
  },
  { ...closed, $id: 'FileLink' },
);

/** An address check (`POST /addresses/verify`): what the carrier made of the address. */
export const AddressVerification = Type.Object(
  {
    object: Type.Literal('address_verification'),
    livemode,
    verified: Type.Boolean({ description: 'The carrier matched the address to one address it delivers to' }),
    address: Type.Object(
      {
        name: Type.String(),
        line1: Type.String(),
        line2: nullable(Type.String()),
        city: Type.String(),
        state: nullable(Type.String({ description: 'ISO 3166-2 subdivision code without the country prefix' })),
        postcode: Type.String({ description: 'With ZIP+4 (12345-6789) when the carrier matched a US address' }),
        country: Type.String({ description: 'ISO 3166-1 alpha-2, upper case' }),
      },
      { ...closed, description: "The carrier's standardised address when it gave one; otherwise the address as sent" },
    ),
    residential: nullable(Type.Boolean({ description: 'true residential, false commercial; null where the carrier does not say' })),
    carrier: literals(ADDRESS_VERIFIERS, 'The carrier that checked it: USPS, or UPS when USPS is not enabled or did not answer'),
    messages: Type.Array(Type.Object({ code: literals(ADDRESS_MESSAGE_CODES), message: Type.String() }, closed), {
      description: "What the carrier said of the address: a stable code, and the carrier's words where it gave some",
    }),
  },
  { ...closed, $id: 'AddressVerification' },
);
