import { Type, type Static } from '@sinclair/typebox';

/**
 * Our own TypeBox schemas of the UPS operations we use, written from UPS's published OpenAPI files
 * (OAuthClientCredentials, Rating, Shipping, Tracking): the fields we send or read, spelled as UPS
 * spells them, with the documents' required fields and lengths.
 *
 * Requests are closed (`additionalProperties: false`): we send only what the documents define.
 * Answers are open: UPS adds fields between releases, and we read only what we need.
 *
 * Where a UPS schema contradicts its own listed values, the listed values win (they are what the
 * servers accept):
 * - Rating `Shipment.Service.Code` says length 3, its values are two characters (`03`);
 * - Label Recovery `LabelImageFormat.Code` says length 4, its values are three (`GIF`, `ZPL`);
 * - UPS writes an array's item length and count as `minLength`/`maxLength`/`maximum` on the array
 *   itself (`AddressLine`: 35 characters, "max occurrence 3"); here they sit on the items and `maxItems`.
 */

const closed = { additionalProperties: false } as const;
const str = (minLength: number, maxLength: number, extra: object = {}) => Type.String({ minLength, maxLength, ...extra });
/** UPS's "empty tag" indicators: presence means yes, the value is ignored. */
const indicator = () => Type.String();

/** The limits the documents give, used by the address checks and the schemas alike. */
export const UPS_LIMITS = {
  name: 35,
  attentionName: 35,
  addressLine: 35,
  addressLines: 3,
  city: 30,
  /** Rating allows 2, Shipping 5: an address must pass both, a quote and its purchase. */
  stateRating: 2,
  stateShipping: 5,
  postalCode: 9,
  countryCode: 2,
  shipperNumber: 6,
  referenceValue: 35,
  /** Shipping `Package.Dimensions`: whole numbers of at most 3 digits; Length ≤ 108 IN / 270 CM. */
  maxLength: { IN: 108, CM: 270 },
  /** Length + 2 × (Width + Height) ≤ 165 IN / 330 CM. */
  maxLengthPlusGirth: { IN: 165, CM: 330 },
  /** Shipping `PackageWeight.Weight` is at most 5 characters. */
  weightChars: 5,
} as const;

// ---------------------------------------------------------------- OAuth

/** `POST /security/v1/oauth/token` (form body). `expires_in` is a string of seconds per the document. */
export const TokenRequest = Type.Object({ grant_type: Type.Literal('client_credentials') }, closed);
export const TokenResponse = Type.Object({
  token_type: Type.Optional(Type.String()),
  issued_at: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  access_token: Type.String({ minLength: 1 }),
  scope: Type.Optional(Type.String()),
  expires_in: Type.String({ pattern: '^\\d+$' }),
  refresh_count: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
});
export type TokenResponse = Static<typeof TokenResponse>;

// ---------------------------------------------------------------- Errors

/** Every UPS API answers an error as `{ response: { errors: [{ code, message }] } }`. */
export const UpsErrorBody = Type.Object({
  response: Type.Object({
    errors: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
  }),
});
export type UpsErrorBody = Static<typeof UpsErrorBody>;

// ---------------------------------------------------------------- Shared pieces

const TransactionReference = Type.Object({ CustomerContext: str(1, 512) }, closed);
const AddressLines = Type.Array(str(1, UPS_LIMITS.addressLine), { minItems: 1, maxItems: UPS_LIMITS.addressLines });
const Money = (max = 19) => Type.Object({ CurrencyCode: str(3, 3), MonetaryValue: str(1, max) });
const ResponseStatus = Type.Object({ Code: str(1, 1), Description: str(1, 35) });
const CodeDescription = (codeMin: number, codeMax: number, descriptionRequired: boolean) =>
  Type.Object(
    { Code: str(codeMin, codeMax), Description: descriptionRequired ? str(1, 35) : Type.Optional(str(1, 35)) },
    closed,
  );

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
/** Shipping: City required, StateProvinceCode 1 to 5 characters. */
const ShipAddress = Type.Object(
  {
    AddressLine: AddressLines,
    City: str(1, UPS_LIMITS.city),
    StateProvinceCode: Type.Optional(str(1, UPS_LIMITS.stateShipping)),
    PostalCode: Type.Optional(str(1, UPS_LIMITS.postalCode)),
    CountryCode: str(2, UPS_LIMITS.countryCode),
  },
  closed,
);

// ---------------------------------------------------------------- Rating (POST /rating/v2409/{Rate|Shop})

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
            ShipTo: RateParty,
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

// ---------------------------------------------------------------- Shipping (POST /shipments/v2409/ship)

const ShipReference = Type.Object({ Code: Type.Optional(str(1, 2)), Value: str(1, UPS_LIMITS.referenceValue) }, closed);

export const ShipRequest = Type.Object(
  {
    ShipmentRequest: Type.Object(
      {
        Request: Type.Object(
          {
            RequestOption: Type.Union([Type.Literal('validate'), Type.Literal('nonvalidate')]),
            SubVersion: Type.Optional(str(4, 4)),
            TransactionReference: Type.Optional(TransactionReference),
          },
          closed,
        ),
        Shipment: Type.Object(
          {
            Description: Type.Optional(str(1, 50)),
            Shipper: Type.Object(
              {
                Name: str(1, UPS_LIMITS.name),
                AttentionName: Type.Optional(str(1, UPS_LIMITS.attentionName)),
                ShipperNumber: str(6, 6),
                Address: ShipAddress,
              },
              closed,
            ),
            ShipTo: Type.Object(
              { Name: str(1, UPS_LIMITS.name), AttentionName: Type.Optional(str(1, UPS_LIMITS.attentionName)), Address: ShipAddress },
              closed,
            ),
            ShipFrom: Type.Optional(Type.Object({ Name: str(1, UPS_LIMITS.name), Address: ShipAddress }, closed)),
            PaymentInformation: Type.Object(
              {
                ShipmentCharge: Type.Array(
                  Type.Object({ Type: str(2, 2), BillShipper: Type.Object({ AccountNumber: str(6, 6) }, closed) }, closed),
                  { minItems: 1 },
                ),
              },
              closed,
            ),
            ShipmentRatingOptions: Type.Optional(Type.Object({ NegotiatedRatesIndicator: Type.Optional(indicator()) }, closed)),
            // Shipment-level references are valid only off US/US and PR/PR routes; there they go on the package.
            ReferenceNumber: Type.Optional(Type.Array(ShipReference, { maxItems: 2 })),
            Service: Type.Object({ Code: str(2, 2), Description: Type.Optional(str(1, 35)) }, closed),
            Package: Type.Array(
              Type.Object(
                {
                  Description: Type.Optional(str(1, 35)),
                  Packaging: CodeDescription(2, 2, false),
                  Dimensions: Type.Optional(
                    Type.Object(
                      {
                        UnitOfMeasurement: CodeDescription(2, 2, false),
                        Length: str(1, 3, { pattern: '^\\d+$' }),
                        Width: str(1, 3, { pattern: '^\\d+$' }),
                        Height: str(1, 3, { pattern: '^\\d+$' }),
                      },
                      closed,
                    ),
                  ),
                  PackageWeight: Type.Optional(
                    Type.Object({ UnitOfMeasurement: CodeDescription(1, 3, false), Weight: str(1, UPS_LIMITS.weightChars) }, closed),
                  ),
                  ReferenceNumber: Type.Optional(Type.Array(ShipReference, { maxItems: 2 })),
                },
                closed,
              ),
              { minItems: 1 },
            ),
          },
          closed,
        ),
        LabelSpecification: Type.Object(
          {
            LabelImageFormat: Type.Object({ Code: Type.Union([Type.Literal('GIF'), Type.Literal('ZPL')]), Description: Type.Optional(str(1, 35)) }, closed),
            HTTPUserAgent: Type.Optional(str(1, 64)),
            LabelStockSize: Type.Object({ Height: Type.Union([Type.Literal('6'), Type.Literal('8')]), Width: Type.Literal('4') }, closed),
          },
          closed,
        ),
      },
      closed,
    ),
  },
  closed,
);
export type ShipRequest = Static<typeof ShipRequest>;

export const ShipResponse = Type.Object({
  ShipmentResponse: Type.Object({
    Response: Type.Object({ ResponseStatus }),
    ShipmentResults: Type.Object({
      ShipmentCharges: Type.Optional(
        Type.Object({ TransportationCharges: Money(), ServiceOptionsCharges: Money(), TotalCharges: Money() }),
      ),
      NegotiatedRateCharges: Type.Optional(Type.Object({ TotalCharge: Type.Optional(Money()) })),
      BillingWeight: Type.Object({
        UnitOfMeasurement: Type.Object({ Code: str(3, 3), Description: Type.Optional(str(1, 35)) }),
        Weight: Type.String(),
      }),
      ShipmentIdentificationNumber: Type.Optional(str(18, 18)),
      PackageResults: Type.Optional(
        Type.Array(
          Type.Object({
            TrackingNumber: str(18, 18),
            ShippingLabel: Type.Optional(
              Type.Object({
                ImageFormat: Type.Object({ Code: str(3, 3), Description: Type.Optional(str(1, 35)) }),
                GraphicImage: Type.String(),
              }),
            ),
          }),
        ),
      ),
    }),
  }),
});
export type ShipResponse = Static<typeof ShipResponse>;

// ---------------------------------------------------------------- Void (DELETE /shipments/v2409/void/cancel/{id})

export const VoidResponse = Type.Object({
  VoidShipmentResponse: Type.Object({
    Response: Type.Object({ ResponseStatus }),
    SummaryResult: Type.Object({ Status: Type.Object({ Code: str(1, 1), Description: str(1, 15) }) }),
    PackageLevelResults: Type.Optional(
      Type.Array(Type.Object({ TrackingNumber: str(18, 18), Status: Type.Object({ Code: str(1, 1), Description: str(1, 35) }) })),
    ),
  }),
});
export type VoidResponse = Static<typeof VoidResponse>;

// ---------------------------------------------------------------- Label recovery (POST /labels/v1/recovery)

export const LabelRecoveryRequest = Type.Object(
  {
    LabelRecoveryRequest: Type.Object(
      {
        Request: Type.Object({ SubVersion: Type.Optional(Type.String()), TransactionReference: Type.Optional(Type.Object({ CustomerContext: str(5, 512) }, closed)) }, closed),
        LabelSpecification: Type.Object(
          {
            HTTPUserAgent: Type.Optional(str(1, 64)),
            // Listed values are three characters, whatever the length the schema states.
            LabelImageFormat: Type.Object({ Code: Type.Union([Type.Literal('GIF'), Type.Literal('ZPL')]), Description: Type.Optional(str(1, 35)) }, closed),
            LabelStockSize: Type.Optional(Type.Object({ Height: Type.Union([Type.Literal('6'), Type.Literal('8')]), Width: Type.Literal('4') }, closed)),
          },
          closed,
        ),
        TrackingNumber: str(1, 18),
        // The schema marks these two required although their text says "Roadie only"; they are sent
        // with values naming the same package so a schema-strict server and the real one agree.
        TrackingNumbers: Type.Array(str(1, 34), { minItems: 1, maxItems: 20 }),
        ReferenceValues: Type.Object(
          { ReferenceNumber: Type.Object({ Value: str(1, UPS_LIMITS.referenceValue) }, closed), ShipperNumber: str(6, 6) },
          closed,
        ),
      },
      closed,
    ),
  },
  closed,
);
export type LabelRecoveryRequest = Static<typeof LabelRecoveryRequest>;

export const LabelRecoveryResponse = Type.Object({
  LabelRecoveryResponse: Type.Object({
    Response: Type.Object({ ResponseStatus }),
    ShipmentIdentificationNumber: Type.Optional(str(18, 18)),
    LabelResults: Type.Array(
      Type.Object({
        TrackingNumber: Type.Optional(str(18, 18)),
        LabelImage: Type.Optional(
          Type.Object({ LabelImageFormat: Type.Object({ Code: str(3, 4) }), GraphicImage: Type.String() }),
        ),
      }),
    ),
  }),
});
export type LabelRecoveryResponse = Static<typeof LabelRecoveryResponse>;

// ---------------------------------------------------------------- Tracking (GET /track/v1/details, /track/v1/reference/details)

const TrackAddress = Type.Object({
  addressLine1: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  stateProvince: Type.Optional(Type.String()),
  postalCode: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
  countryCode: Type.Optional(Type.String()),
});
const TrackStatus = Type.Object({
  type: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  statusCode: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  simplifiedTextDescription: Type.Optional(Type.String()),
});
export const TrackActivity = Type.Object({
  date: Type.Optional(Type.String({ pattern: '^\\d{8}$' })),
  time: Type.Optional(Type.String({ pattern: '^\\d{6}$' })),
  gmtDate: Type.Optional(Type.String({ pattern: '^\\d{8}$' })),
  gmtOffset: Type.Optional(Type.String()),
  gmtTime: Type.Optional(Type.String()),
  location: Type.Optional(Type.Object({ address: Type.Optional(TrackAddress), slic: Type.Optional(Type.String()) })),
  status: Type.Optional(TrackStatus),
  logicalScan: Type.Optional(Type.Boolean()),
});
export type TrackActivity = Static<typeof TrackActivity>;

export const TrackResponse = Type.Object({
  trackResponse: Type.Object({
    shipment: Type.Array(
      Type.Object({
        inquiryNumber: Type.Optional(Type.String()),
        package: Type.Optional(
          Type.Array(
            Type.Object({
              trackingNumber: Type.Optional(Type.String()),
              activity: Type.Optional(Type.Array(TrackActivity)),
              currentStatus: Type.Optional(TrackStatus),
              referenceNumber: Type.Optional(Type.Array(Type.Object({ number: Type.Optional(Type.String()), type: Type.Optional(Type.String()) }))),
              packageCount: Type.Optional(Type.Integer()),
            }),
          ),
        ),
        warnings: Type.Optional(Type.Array(Type.Object({ code: Type.Optional(Type.String()), message: Type.Optional(Type.String()) }))),
      }),
    ),
  }),
});
export type TrackResponse = Static<typeof TrackResponse>;
