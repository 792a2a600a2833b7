/** UPS Shipping schemas: ship (`POST /shipments/v2409/ship`), void and label recovery. */
import { Type, type Static } from '@sinclair/typebox';
import { AddressLines, closed, CodeDescription, indicator, Money, ResponseStatus, str, TransactionReference, UPS_LIMITS } from './schemas-common.js';
import { GlobalTaxInformation, Phone, ReturnService, ShipPackageServiceOptions, ShipResponseForm, ShipShipmentServiceOptions } from './schemas-international.js';

// ---------------------------------------------------------------- Shipping (POST /shipments/v2409/ship)

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

/** ShipTo's address also takes the residential flag (an empty tag). */
const ShipToAddress = Type.Object({ ...ShipAddress.properties, ResidentialAddressIndicator: Type.Optional(indicator()) }, closed);

/** A party: its name (the company where there is one), the contact, phone and e-mail. */
const party = <A extends typeof ShipAddress | typeof ShipToAddress>(address: A) => ({
  Name: str(1, UPS_LIMITS.name),
  AttentionName: Type.Optional(str(1, UPS_LIMITS.attentionName)),
  Phone: Type.Optional(Phone),
  EMailAddress: Type.Optional(str(1, UPS_LIMITS.email)),
  Address: address,
});

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
            Description: Type.Optional(str(1, UPS_LIMITS.description)),
            ReturnService: Type.Optional(ReturnService),
            Shipper: Type.Object({ ...party(ShipAddress), ShipperNumber: str(6, 6) }, closed),
            ShipTo: Type.Object(party(ShipToAddress), closed),
            ShipFrom: Type.Optional(Type.Object(party(ShipAddress), closed)),
            PaymentInformation: Type.Object(
              {
                ShipmentCharge: Type.Array(
                  Type.Object({ Type: Type.Union([Type.Literal('01'), Type.Literal('02')]), BillShipper: Type.Object({ AccountNumber: str(6, 6) }, closed) }, closed),
                  { minItems: 1, maxItems: 3 },
                ),
              },
              closed,
            ),
            GlobalTaxInformation: Type.Optional(GlobalTaxInformation),
            ShipmentServiceOptions: Type.Optional(ShipShipmentServiceOptions),
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
                  PackageServiceOptions: Type.Optional(ShipPackageServiceOptions),
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
      // The international forms (the commercial invoice) as one PDF, when they were asked for.
      Form: Type.Optional(ShipResponseForm),
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
