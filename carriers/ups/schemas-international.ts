/**
 * UPS Shipping and Rating pieces for shipments abroad, returns and options: the commercial invoice
 * (`ShipmentServiceOptions.InternationalForms`), tax ids (`GlobalTaxInformation`), phones,
 * `ReturnService`, and the shipment's and package's service options, with the documents' lengths.
 */
import { Type } from '@sinclair/typebox';
import { AddressLines, closed, indicator, str, UPS_LIMITS } from './schemas-common.js';

/** A phone: "Valid values are 0 - 9", at most 15 of them. */
export const Phone = Type.Object({ Number: str(1, UPS_LIMITS.phone, { pattern: '^[0-9]+$' }), Extension: Type.Optional(str(1, 4)) }, closed);

/** `Shipment.ReturnService`: its presence makes the shipment a return. */
export const ReturnService = Type.Object({ Code: str(1, 2), Description: Type.Optional(str(1, 35)) }, closed);

const SoldToAddress = Type.Object(
  {
    AddressLine: AddressLines,
    City: str(1, UPS_LIMITS.city),
    StateProvinceCode: Type.Optional(str(1, UPS_LIMITS.stateShipping)),
    PostalCode: Type.Optional(str(1, UPS_LIMITS.postalCode)),
    CountryCode: str(2, 2),
  },
  closed,
);

const Product = Type.Object(
  {
    Description: Type.Array(str(1, UPS_LIMITS.productDescription), { minItems: 1, maxItems: 3 }),
    Unit: Type.Object(
      {
        Number: str(1, 7, { pattern: '^[0-9]+$' }),
        // Up to six decimals, 19 characters with the point.
        Value: str(1, 19, { pattern: '^[0-9]+(\\.[0-9]{1,6})?$' }),
        UnitOfMeasurement: Type.Object({ Code: str(1, 3), Description: Type.Optional(str(1, 35)) }, closed),
      },
      closed,
    ),
    CommodityCode: Type.Optional(str(6, 15, { pattern: '^[0-9A-Za-z]+$' })),
    PartNumber: Type.Optional(str(1, UPS_LIMITS.partNumber)),
    OriginCountryCode: Type.Optional(str(2, 2)),
  },
  closed,
);

/** FormType 01 (Invoice) on forward shipments, 05 (Partial Invoice) with a return service. */
export const InternationalForms = Type.Object(
  {
    FormType: Type.Array(Type.Union([Type.Literal('01'), Type.Literal('05')]), { minItems: 1, maxItems: 6 }),
    Contacts: Type.Optional(
      Type.Object(
        {
          SoldTo: Type.Object(
            {
              Name: str(1, UPS_LIMITS.name),
              AttentionName: str(1, UPS_LIMITS.attentionName),
              Phone: Type.Optional(Phone),
              Address: SoldToAddress,
              EMailAddress: Type.Optional(str(1, UPS_LIMITS.email)),
            },
            closed,
          ),
        },
        closed,
      ),
    ),
    Product: Type.Array(Product, { minItems: 1, maxItems: 50 }),
    InvoiceNumber: Type.Optional(str(1, UPS_LIMITS.invoiceNumber)),
    InvoiceDate: Type.Optional(str(8, 8, { pattern: '^[0-9]{8}$' })),
    TermsOfShipment: Type.Optional(str(3, 3)),
    ReasonForExport: Type.Optional(str(1, UPS_LIMITS.reasonForExport)),
    CurrencyCode: str(3, 3),
  },
  closed,
);

const TaxIdentificationNumber = Type.Object(
  {
    IdentificationNumber: str(1, 35),
    IDNumberCustomerRole: str(2, 2),
    IDNumberEncryptionIndicator: Type.Literal('0'),
    IDNumberPurposeCode: str(2, 2),
    IDNumberTypeCode: str(4, 4),
    IncludeIDNumberOnShippingBrokerageDocs: Type.Optional(str(2, 2)),
  },
  closed,
);

/** Tax ids by party: AgentRole 20 is the ship-from party, 30 the consignee. */
export const GlobalTaxInformation = Type.Object(
  {
    AgentTaxIdentificationNumber: Type.Array(
      Type.Object({ AgentRole: Type.Union([Type.Literal('20'), Type.Literal('30')]), TaxIdentificationNumber: Type.Array(TaxIdentificationNumber, { minItems: 1, maxItems: 8 }) }, closed),
      { minItems: 1, maxItems: 4 },
    ),
  },
  closed,
);

/** Shipment-level options we send: Saturday delivery and the invoice (Shipping). */
export const ShipShipmentServiceOptions = Type.Object(
  { SaturdayDeliveryIndicator: Type.Optional(indicator()), InternationalForms: Type.Optional(InternationalForms) },
  closed,
);

/** DCISType 2 is a signature, 3 an adult signature. */
const DeliveryConfirmation = Type.Object({ DCISType: Type.Union([Type.Literal('2'), Type.Literal('3')]) }, closed);

/** Package options in Shipping: declared value (1 to 19 characters) and delivery confirmation. */
export const ShipPackageServiceOptions = Type.Object(
  {
    DeclaredValue: Type.Optional(Type.Object({ CurrencyCode: str(3, 3), MonetaryValue: str(1, 19, { pattern: '^[0-9]+(\\.[0-9]{1,2})?$' }) }, closed)),
    DeliveryConfirmation: Type.Optional(DeliveryConfirmation),
  },
  closed,
);

/** Package options in Rating, where the declared value is exactly 8 characters. */
export const RatePackageServiceOptions = Type.Object(
  {
    DeclaredValue: Type.Optional(Type.Object({ CurrencyCode: str(3, 3), MonetaryValue: str(8, 8, { pattern: '^[0-9]{5}\\.[0-9]{2}$' }) }, closed)),
    DeliveryConfirmation: Type.Optional(DeliveryConfirmation),
  },
  closed,
);

export const RateShipmentServiceOptions = Type.Object({ SaturdayDeliveryIndicator: Type.Optional(indicator()), ReturnService: Type.Optional(ReturnService) }, closed);

/** The answer's international form: a PDF image. */
export const ShipResponseForm = Type.Object({
  Code: Type.Optional(Type.String()),
  Description: Type.Optional(Type.String()),
  Image: Type.Object({ ImageFormat: Type.Object({ Code: str(3, 3), Description: Type.Optional(Type.String()) }), GraphicImage: Type.String() }),
});
