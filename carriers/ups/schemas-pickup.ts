/**
 * The Pickup API (`Pickup.yaml`): Pickup Creation (`POST /pickupcreation/v2409/pickup`, an on-call
 * pickup, rated with `RatePickupIndicator: Y`) and Pickup Cancel by PRN
 * (`DELETE /shipments/v2409/pickup/02` with the `Prn` header).
 *
 * Where the document's lengths contradict its own format, the format wins: `PickupDate` says
 * length 4 but is `yyyyMMdd`; the charges say length 8 but are amounts such as `12.50`.
 * `TotalWeight.Weight` follows its schema, exactly six characters with one decimal digit (`0002.5`),
 * as a server that checks the document requires (its example `10.9` is shorter).
 */
import { Type, type Static } from '@sinclair/typebox';
import { closed, str } from './schemas-common.js';

const yn = () => Type.Union([Type.Literal('Y'), Type.Literal('N')]);

export const PickupCreationRequest = Type.Object(
  {
    PickupCreationRequest: Type.Object(
      {
        Request: Type.Object({ TransactionReference: Type.Optional(Type.Object({ CustomerContext: str(1, 512) }, closed)) }, closed),
        RatePickupIndicator: yn(),
        Shipper: Type.Object({ Account: Type.Object({ AccountNumber: str(6, 10), AccountCountryCode: str(2, 2) }, closed) }, closed),
        PickupDateInfo: Type.Object(
          { CloseTime: str(4, 4, { pattern: '^([01]\\d|2[0-3])[0-5]\\d$' }), ReadyTime: str(4, 4, { pattern: '^([01]\\d|2[0-3])[0-5]\\d$' }), PickupDate: str(8, 8, { pattern: '^\\d{8}$' }) },
          closed,
        ),
        PickupAddress: Type.Object(
          {
            CompanyName: str(1, 27),
            ContactName: str(1, 22),
            // "For Jan. 2010 release, only one AddressLine is allowed."
            AddressLine: Type.Array(str(1, 35), { minItems: 1, maxItems: 1 }),
            Room: Type.Optional(str(1, 8)),
            Floor: Type.Optional(str(1, 3)),
            City: str(1, 50),
            StateProvince: Type.Optional(str(1, 50)),
            PostalCode: Type.Optional(str(1, 8)),
            CountryCode: str(2, 2),
            ResidentialIndicator: yn(),
            PickupPoint: Type.Optional(str(1, 11)),
            Phone: Type.Object({ Number: str(1, 25), Extension: Type.Optional(str(1, 10)) }, closed),
          },
          closed,
        ),
        AlternateAddressIndicator: yn(),
        PickupPiece: Type.Array(
          Type.Object(
            {
              ServiceCode: str(3, 3, { pattern: '^\\d{3}$' }),
              Quantity: str(1, 3, { pattern: '^[1-9]\\d{0,2}$' }),
              DestinationCountryCode: str(2, 2),
              ContainerCode: Type.Union([Type.Literal('01'), Type.Literal('02'), Type.Literal('03')]),
            },
            closed,
          ),
          { minItems: 1 },
        ),
        TotalWeight: Type.Optional(Type.Object({ Weight: str(6, 6, { pattern: '^\\d{4}\\.\\d$' }), UnitOfMeasurement: Type.Union([Type.Literal('LBS'), Type.Literal('KGS')]) }, closed)),
        OverweightIndicator: Type.Optional(yn()),
        // 01 = pay by shipper account.
        PaymentMethod: Type.Union(['00', '01', '03', '04', '05', '06', '07'].map((c) => Type.Literal(c))),
        SpecialInstruction: Type.Optional(str(1, 57)),
        ReferenceNumber: Type.Optional(str(1, 35)),
      },
      closed,
    ),
  },
  closed,
);
export type PickupCreationRequest = Static<typeof PickupCreationRequest>;

const ResponseStatus = Type.Object({ Code: Type.String(), Description: Type.String() });

export const PickupCreationResponse = Type.Object({
  PickupCreationResponse: Type.Object({
    Response: Type.Object({ ResponseStatus }),
    PRN: Type.Optional(Type.String({ minLength: 1, maxLength: 11 })),
    RateStatus: Type.Object({ Code: Type.String(), Description: Type.Optional(Type.String()) }),
    RateResult: Type.Optional(
      Type.Object({
        CurrencyCode: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
        GrandTotalOfAllCharge: Type.String({ pattern: '^\\s*\\d+(\\.\\d{1,2})?\\s*$' }),
        RateType: Type.Optional(Type.String()),
      }),
    ),
  }),
});
export type PickupCreationResponse = Static<typeof PickupCreationResponse>;

export const PickupCancelResponse = Type.Object({
  PickupCancelResponse: Type.Object({
    Response: Type.Object({ ResponseStatus }),
    PickupType: Type.String({ minLength: 2, maxLength: 2 }),
    GWNStatus: Type.Optional(Type.Object({ Code: Type.String(), Description: Type.Optional(Type.String()) })),
  }),
});
export type PickupCancelResponse = Static<typeof PickupCancelResponse>;

/** Pickup Pending Status's answer: the account's on-call pickups of today and tomorrow. */
export const PickupPendingStatusResponse = Type.Object({
  PickupPendingStatusResponse: Type.Object({
    Response: Type.Object({ ResponseStatus: Type.Object({ Code: Type.String(), Description: Type.Optional(Type.String()) }) }),
    PendingStatus: Type.Array(
      Type.Object({
        PickupType: str(2, 2),
        ServiceDate: str(8, 8),
        PRN: str(11, 11),
        PickupStatusMessage: str(1, 500),
        GWNStatusCode: Type.Optional(str(2, 2)),
        OnCallStatusCode: Type.Optional(str(3, 3)),
        BillingCode: Type.Optional(str(2, 2)),
        ContactName: Type.Optional(str(1, 22)),
        ReferenceNumber: Type.Optional(str(1, 35)),
      }),
    ),
  }),
});
export type PickupPendingStatusResponse = Static<typeof PickupPendingStatusResponse>;
