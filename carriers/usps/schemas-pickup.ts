/**
 * The Carrier Pickup API (`carrier-pickup.yaml`, under `/pickup/v3`): scheduling
 * (`POST /carrier-pickup`, `SchedulePickupRequest` → `PickupConfirmation`), reading one for its
 * ETag (`GET /carrier-pickup/{confirmationNumber}`) and cancelling it
 * (`DELETE /carrier-pickup/{confirmationNumber}` with `If-Match`). USPS charges nothing for it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { FULL_DATE, STATE_PATTERN, closed, open } from './schemas-common.js';

export const USPS_PICKUP_PACKAGE_TYPES = [
  'FIRST-CLASS_PACKAGE_SERVICE',
  'PRIORITY_MAIL_EXPRESS',
  'PRIORITY_MAIL',
  'RETURNS',
  'USPS_GROUND_ADVANTAGE',
  'INTERNATIONAL',
  'OTHER',
] as const;
export const USPS_PACKAGE_LOCATIONS = ['FRONT_DOOR', 'BACK_DOOR', 'SIDE_DOOR', 'KNOCK_ON_DOOR', 'MAIL_ROOM', 'OFFICE', 'PORCH', 'RECEPTION', 'MAILBOX', 'OTHER'] as const;

/**
 * `PickupAddress`: the `Addressee` (first and last name required), its `DomesticAddress` and one or
 * two contact methods. We send the two-letter state code, one of the forms the pattern allows.
 */
export const UspsPickupAddress = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 50 }),
    lastName: Type.String({ minLength: 1, maxLength: 50 }),
    firm: Type.Optional(Type.String({ minLength: 0, maxLength: 50 })),
    address: Type.Object(
      {
        streetAddress: Type.String({ minLength: 1, maxLength: 50 }),
        secondaryAddress: Type.Optional(Type.String({ maxLength: 50 })),
        city: Type.String({ minLength: 1, maxLength: 28 }),
        state: Type.String({ minLength: 2, maxLength: 100, pattern: STATE_PATTERN }),
        ZIPCode: Type.String({ pattern: '^\\d{5}$' }),
        ZIPPlus4: Type.Optional(Type.String({ pattern: '^\\d{4}$' })),
      },
      closed,
    ),
    contact: Type.Array(
      Type.Union([Type.Object({ email: Type.String({ maxLength: 50, format: 'email' }) }, closed), Type.Object({ cellNumber: Type.String({ pattern: '^\\d{10}$' }) }, closed)]),
      { minItems: 1, maxItems: 2 },
    ),
  },
  closed,
);

export const UspsSchedulePickupRequest = Type.Object(
  {
    pickupDate: Type.String({ pattern: FULL_DATE }),
    pickupAddress: UspsPickupAddress,
    packages: Type.Array(
      Type.Object({ packageType: Type.Union(USPS_PICKUP_PACKAGE_TYPES.map((t) => Type.Literal(t))), packageCount: Type.Integer() }, closed),
      { minItems: 1 },
    ),
    estimatedWeight: Type.Number(),
    pickupLocation: Type.Object(
      {
        packageLocation: Type.Union(USPS_PACKAGE_LOCATIONS.map((t) => Type.Literal(t))),
        specialInstructions: Type.Optional(Type.String()),
        dogPresent: Type.Optional(Type.Boolean()),
      },
      // "This is required when the package location is 'OTHER'."
      { ...closed, if: { properties: { packageLocation: { const: 'OTHER' } } }, then: { required: ['specialInstructions'] } },
    ),
    nextAvailablePickup: Type.Optional(Type.Boolean()),
  },
  closed,
);
export type UspsSchedulePickupRequest = Static<typeof UspsSchedulePickupRequest>;

/** `PickupConfirmation`. */
export const UspsPickupConfirmation = Type.Object(
  {
    confirmationNumber: Type.String({ minLength: 1 }),
    pickupDate: Type.Optional(Type.String()),
    carrierPickupRequest: Type.Optional(Type.Object({}, open)),
  },
  open,
);
export type UspsPickupConfirmation = Static<typeof UspsPickupConfirmation>;
