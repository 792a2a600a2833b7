/** USPS schema pieces the operations share: state codes, mail classes, patterns, the fee and the error body. */
import { Type, type Static } from '@sinclair/typebox';

export const closed = { additionalProperties: false } as const;
export const open = { additionalProperties: true } as const;

// ---- Shared pieces -------------------------------------------------------------------------------

/** The two-letter state codes the labels and tracking documents list (states, DC, territories, APO/FPO/DPO). */
export const USPS_STATE_CODES = [
  'AA', 'AE', 'AL', 'AK', 'AP', 'AS', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'DC', 'FM', 'FL', 'GA', 'GU', 'HI', 'ID', 'IL',
  'IN', 'IA', 'KS', 'KY', 'LA', 'ME', 'MH', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MP', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM',
  'NY', 'NC', 'ND', 'OH', 'OK', 'OR', 'PW', 'PA', 'PR', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VI', 'VA', 'WA', 'WV',
  'WI', 'WY',
] as const;
export const STATE_PATTERN = `^(${USPS_STATE_CODES.join('|')})$`;

/** The mail classes we sell (domestic-prices `MailClass`, domestic-labels `mailClass`). */
export const USPS_MAIL_CLASSES = ['USPS_GROUND_ADVANTAGE', 'PRIORITY_MAIL', 'PRIORITY_MAIL_EXPRESS'] as const;
export const MailClass = Type.Union(USPS_MAIL_CLASSES.map((c) => Type.Literal(c)));
export const ProcessingCategory = Type.Union([Type.Literal('MACHINABLE'), Type.Literal('NONSTANDARD')]);
/** `SP` single piece (Ground Advantage, Priority Mail), `PA` Priority Mail Express single piece. */
export const RateIndicator = Type.Union([Type.Literal('SP'), Type.Literal('PA')]);
export const PriceType = Type.Union([Type.Literal('RETAIL'), Type.Literal('COMMERCIAL'), Type.Literal('CONTRACT')]);
export const ZIP_OR_ZIP4 = '^\\d{5}(?:[-\\s]\\d{4})?$';
export const MID_PATTERN = '^(\\d{6}|\\d{9})$';
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** RFC 3339 full-date, as `MailingDate` is (`format: date`). */
export const FULL_DATE = '^\\d{4}-\\d{2}-\\d{2}$';
/** A positive decimal (`minimum: 0, exclusiveMinimum: true`). */
export const Positive = (description: string) => Type.Number({ exclusiveMinimum: 0, description });

export const UspsFee = Type.Object({ name: Type.Optional(Type.String()), SKU: Type.Optional(Type.String()), price: Type.Optional(Type.Number()) }, open);

/** USPS's error body (`ErrorMessage`, the same in every v3 document). */
export const UspsErrorMessage = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    error: Type.Optional(
      Type.Object(
        {
          code: Type.Optional(Type.String()),
          message: Type.Optional(Type.String()),
          errors: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  status: Type.Optional(Type.String()),
                  code: Type.Optional(Type.String()),
                  title: Type.Optional(Type.String()),
                  detail: Type.Optional(Type.String()),
                  source: Type.Optional(Type.Object({ parameter: Type.Optional(Type.String()), example: Type.Optional(Type.String()) }, open)),
                },
                open,
              ),
            ),
          ),
        },
        open,
      ),
    ),
  },
  open,
);
export type UspsErrorMessage = Static<typeof UspsErrorMessage>;
