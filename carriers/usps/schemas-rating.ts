/** USPS domestic prices schemas (`POST /prices/v3/base-rates/search`): the query and a rate option. */
import { Type, type Static } from '@sinclair/typebox';
import { closed, FULL_DATE, MailClass, open, Positive, PriceType, ProcessingCategory, RateIndicator, UspsFee, ZIP_OR_ZIP4 } from './schemas-common.js';

/** `BaseRatesQuery` (closed in the document itself): the fields it requires plus the contract-rate account. */
export const UspsBaseRatesQuery = Type.Object(
  {
    originZIPCode: Type.String({ pattern: ZIP_OR_ZIP4 }),
    destinationZIPCode: Type.String({ pattern: ZIP_OR_ZIP4 }),
    weight: Positive('pounds'),
    length: Positive('inches, the longest side'),
    width: Positive('inches, the second longest side'),
    height: Positive('inches'),
    // The return classes too: a return label is priced under its return mail class.
    mailClass: Type.Union([MailClass, ...['USPS_GROUND_ADVANTAGE_RETURN_SERVICE', 'PRIORITY_MAIL_RETURN_SERVICE', 'PRIORITY_MAIL_EXPRESS_RETURN_SERVICE'].map((c) => Type.Literal(c))]),
    processingCategory: ProcessingCategory,
    rateIndicator: RateIndicator,
    destinationEntryFacilityType: Type.Literal('NONE'),
    priceType: PriceType,
    mailingDate: Type.Optional(Type.String({ pattern: FULL_DATE })),
    accountType: Type.Optional(Type.Literal('EPS')),
    accountNumber: Type.Optional(Type.String({ pattern: '^\\d+$' })),
  },
  closed,
);
export type UspsBaseRatesQuery = Static<typeof UspsBaseRatesQuery>;

/** `BaseRateOption`: `totalBasePrice` is the rate plus fees and pound postage. */
export const UspsBaseRateOption = Type.Object(
  {
    totalBasePrice: Type.Number({ minimum: 0 }),
    rates: Type.Optional(
      Type.Array(
        Type.Object(
          {
            SKU: Type.Optional(Type.String()),
            description: Type.Optional(Type.String()),
            priceType: Type.Optional(Type.String()),
            price: Type.Optional(Type.Number()),
            weight: Type.Optional(Type.Number()),
            dimWeight: Type.Optional(Type.Number()),
            fees: Type.Optional(Type.Array(UspsFee)),
            startDate: Type.Optional(Type.String()),
            endDate: Type.Optional(Type.String()),
            mailClass: Type.Optional(Type.String()),
            zone: Type.Optional(Type.String()),
            processingCategory: Type.Optional(Type.String()),
            rateIndicator: Type.Optional(Type.String()),
            destinationEntryFacilityType: Type.Optional(Type.String()),
            warnings: Type.Optional(Type.Array(Type.Object({}, open))),
          },
          open,
        ),
      ),
    ),
  },
  // The document closes `BaseRateOption`; it is an answer, so we read it as open all the same.
  open,
);
export type UspsBaseRateOption = Static<typeof UspsBaseRateOption>;
