/** UPS Rating schemas (`POST /rating/v2409/{Rate|Shop}`): the rate request and its answer. */
import { Type, type Static } from '@sinclair/typebox';
import { AddressLines, closed, CodeDescription, indicator, Money, ResponseStatus, str, TransactionReference, UPS_LIMITS } from './schemas-common.js';
import { RatePackageServiceOptions, RateShipmentServiceOptions } from './schemas-international.js';

/** Rating: City optional, StateProvinceCode exactly 2 characters. */
const RateAddress = Type.Object(
  {
    AddressLine: AddressLines,
    City: Type.Optional(str(1, UPS_LIMITS.city)),
    StateProvinceCode: Type.Optional(str(2, UPS_LIMITS.stateRating)),
    PostalCode: Type.Optional(str(1, UPS_LIMITS.postalCode)),
    CountryCode: str(2, UPS_LIMITS.countryCode),
  },
  closed,
);

const RatePackage = Type.Object(
  {
    PackagingType: Type.Optional(CodeDescription(2, 2, false)),
    Dimensions: Type.Optional(
      Type.Object(
        { UnitOfMeasurement: CodeDescription(1, 2, true), Length: str(1, 9), Width: str(1, 9), Height: str(1, 9) },
        closed,
      ),
    ),
    PackageWeight: Type.Optional(Type.Object({ UnitOfMeasurement: CodeDescription(1, 3, true), Weight: str(1, 6) }, closed)),
    PackageServiceOptions: Type.Optional(RatePackageServiceOptions),
  },
  closed,
);

const RateShipper = Type.Object(
  {
    Name: Type.Optional(str(1, UPS_LIMITS.name)),
    AttentionName: Type.Optional(str(1, UPS_LIMITS.attentionName)),
    ShipperNumber: Type.Optional(str(6, 6)),
    Address: RateAddress,
  },
  closed,
);
const RateParty = Type.Object(
  { Name: Type.Optional(str(1, UPS_LIMITS.name)), AttentionName: Type.Optional(str(1, UPS_LIMITS.attentionName)), Address: RateAddress },
  closed,
);
/** ShipTo's address also takes the residential flag (an empty tag): residential surcharges are priced. */
const RateShipTo = Type.Object(
  {
    Name: Type.Optional(str(1, UPS_LIMITS.name)),
    AttentionName: Type.Optional(str(1, UPS_LIMITS.attentionName)),
    Address: Type.Object({ ...RateAddress.properties, ResidentialAddressIndicator: Type.Optional(indicator()) }, closed),
  },
  closed,
);

export const RateRequest = Type.Object(
  {
    RateRequest: Type.Object(
      {
        Request: Type.Object(
          {
            // Required by the schema, though its properties list leaves it out; the path names it too.
            RequestOption: Type.Union([Type.Literal('Rate'), Type.Literal('Shop')]),
            SubVersion: Type.Optional(str(4, 4)),
            TransactionReference: Type.Optional(TransactionReference),
          },
          closed,
        ),
        Shipment: Type.Object(
          {
            Shipper: RateShipper,
            ShipTo: RateShipTo,
            ShipFrom: Type.Optional(RateParty),
            PaymentDetails: Type.Optional(
              Type.Object(
                {
                  ShipmentCharge: Type.Array(
                    Type.Object({ Type: str(2, 2), BillShipper: Type.Object({ AccountNumber: str(6, 6) }, closed) }, closed),
                    { minItems: 1 },
                  ),
                },
                closed,
              ),
            ),
            // Listed values are two characters, whatever the length the schema states.
            Service: Type.Optional(Type.Object({ Code: str(2, 2, { pattern: '^[0-9A-Z]{2}$' }), Description: Type.Optional(str(1, 35)) }, closed)),
            Package: Type.Array(RatePackage, { minItems: 1 }),
            ShipmentServiceOptions: Type.Optional(RateShipmentServiceOptions),
            ShipmentRatingOptions: Type.Optional(Type.Object({ NegotiatedRatesIndicator: Type.Optional(indicator()) }, closed)),
          },
          closed,
        ),
      },
      closed,
    ),
  },
  closed,
);
export type RateRequest = Static<typeof RateRequest>;

const RatedShipment = Type.Object({
  Service: Type.Object({ Code: str(1, 3), Description: Type.Optional(Type.String()) }),
  BillingWeight: Type.Object({
    UnitOfMeasurement: Type.Object({ Code: str(3, 3), Description: str(1, 35) }),
    Weight: str(1, 5),
  }),
  TransportationCharges: Money(16),
  ServiceOptionsCharges: Money(),
  TotalCharges: Money(),
  NegotiatedRateCharges: Type.Optional(Type.Object({ TotalCharge: Type.Object({ CurrencyCode: Type.String(), MonetaryValue: Type.String() }) })),
  GuaranteedDelivery: Type.Optional(Type.Object({ BusinessDaysInTransit: Type.Optional(Type.String()) })),
  RatedPackage: Type.Array(Type.Object({})),
});

export const RateResponse = Type.Object({
  RateResponse: Type.Object({
    Response: Type.Object({ ResponseStatus }),
    // An array always from v2409 on.
    RatedShipment: Type.Array(RatedShipment),
  }),
});
export type RateResponse = Static<typeof RateResponse>;
