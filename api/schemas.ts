import { Type, type Static } from '@sinclair/typebox';
import { COUNTRY_CODES, LABEL_FORMAT_LIST, MAX_ADDRESS_FIELD, MAX_PHONE, PARCEL_LIMITS, PHONE_PATTERN, SHIPMENT_STATUSES, STATE_REQUIRED } from '../domain/index.js';

/**
 * The request schemas: they validate requests and, through @fastify/swagger, make the OpenAPI
 * document, so the two are never written twice.
 */

/** The control characters, as a character class's body: C0, DEL and C1 (Unicode category Cc). */
export const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f';
// Printable text: no control characters, and something other than white space (it is trimmed).
const TEXT = `^[^${CONTROL_CHARACTERS}]*[^\\s${CONTROL_CHARACTERS}][^${CONTROL_CHARACTERS}]*$`;
/** White space that is not a control character (a tab or a newline is refused everywhere, api/hardening.ts). */
const SPACE = `[^\\S${CONTROL_CHARACTERS}]`;
/** Text without control characters, blank allowed. */
export const OPTIONAL_TEXT = `^[^${CONTROL_CHARACTERS}]*$`;

/**
 * An Idempotency-Key header: printable ASCII is space to tilde; HTTP has already trimmed spaces
 * around a header's value.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7e]{1,255}$';

/**
 * Two capital letters (ISO 3166-1 alpha-2). A country is trimmed and case-folded to capitals before
 * validation (api/hardening.ts), as every string is trimmed, so `gb` and ` GB ` are GB.
 */
export const COUNTRY_CODE = '^[A-Z]{2}$';
/**
 * A subdivision code's shape (ISO 3166-2 without the country prefix): 1 to 3 letters or digits,
 * blank allowed (then absent). Whether US and CA need one, and which codes they take, is
 * domain/address.ts's check.
 */
export const STATE_CODE = `^${SPACE}*([A-Za-z0-9]{1,3}${SPACE}*)?$`;
/**
 * Marks a country field: case-folded before validation (api/hardening.ts), and checked, as the enum
 * says, against the assigned codes in the same pass as every other field (api/validation.ts), so
 * one 422 lists every bad field (contract: Errors).
 */
export const COUNTRY_FORMAT = 'iso-3166-1-alpha-2';
/** A phone number (domain/address.ts), or blank for none. */
export const PHONE_FIELD_PATTERN = `^(?:${PHONE_PATTERN.slice(1, -1)})?$`;
/** Marks a state field: trimmed and folded to capitals before validation, as a country is (api/hardening.ts). */
export const STATE_FORMAT = 'iso-3166-2-subdivision';
/** `?created_after=`'s forms (domain/iso-time.ts), checked in the schema's pass for the same reason. */
export const INSTANT_FORMAT = 'iso-8601-instant';

/** The byte values of an id's 26 characters after its prefix (domain/ids.ts: `[0-9a-z]`). */
const ID_BYTES = [...'0123456789abcdefghijklmnopqrstuvwxyz'].map((c) => c.charCodeAt(0));
const ID_LENGTH = 26;

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const alternatives = (parts: string[]) => (parts.length === 1 ? parts[0] : `(?:${parts.join('|')})`);

/**
 * A list's cursor is the last id seen, base64url-encoded without padding (api/pagination.ts): one
 * pattern per list, by the prefix of the ids it pages through, that accepts exactly the encodings
 * of such ids, so the document says what the route decodes. An empty cursor is no cursor.
 */
export const CURSOR_PREFIXES = ['shp', 'evt', 'adr', 'we', 'whd', 'sf', 'pck', 'bat'] as const;
export type CursorPrefix = (typeof CURSOR_PREFIXES)[number];
const cursorBytes = (prefix: CursorPrefix) => [...`${prefix}_`].map((c) => [c.charCodeAt(0)]).concat(Array.from({ length: ID_LENGTH }, () => ID_BYTES));
export const CURSOR_PATTERNS = Object.fromEntries(
  CURSOR_PREFIXES.map((prefix) => [prefix, `^(?:${base64urlPattern(cursorBytes(prefix))})?$`]),
) as Record<CursorPrefix, string>;
/** A cursor's length: its id's bytes in base64url without padding. */
export const cursorLength = (prefix: CursorPrefix) => Math.ceil(((prefix.length + 1 + ID_LENGTH) * 4) / 3);

/**
 * A regular expression (without anchors) of the unpadded base64url encodings of the byte strings
 * whose i-th byte is one of `bytes[i]`. Each group of three bytes is four characters; a character
 * carries bits of two neighbouring bytes, so the characters allowed next depend on the one before:
 * the alternatives below are grouped by what remains possible.
 */
export function base64urlPattern(bytes: number[][]): string {
  const groups: string[] = [];
  for (let i = 0; i < bytes.length; i += 3) groups.push(base64urlGroup(bytes.slice(i, i + 3)));
  // Identical groups in a row (every group of an id's random part) are written once, with a count.
  let out = '';
  for (let i = 0; i < groups.length; ) {
    let n = 1;
    while (groups[i + n] === groups[i]) n++;
    out += n > 1 ? `(?:${groups[i]}){${n}}` : groups[i];
    i += n;
  }
  return out;
}

/** A character class of these 6-bit values (one character when there is one). */
function charClass(values: Iterable<number>): string {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const char = (v: number) => (BASE64URL[v] === '-' ? '\\-' : BASE64URL[v]);
  if (sorted.length === 1) return BASE64URL[sorted[0]] === '-' ? '-' : BASE64URL[sorted[0]];
  let out = '';
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    // A range only within one run of the alphabet (A-Z, a-z, 0-9), where code points follow the values.
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1 && BASE64URL.charCodeAt(sorted[j + 1]) === BASE64URL.charCodeAt(sorted[j]) + 1) j++;
    out += j - i >= 2 ? `${char(sorted[i])}-${char(sorted[j])}` : sorted.slice(i, j + 1).map(char).join('');
    i = j + 1;
  }
  return `[${out}]`;
}

/** Groups `keys` by the set `next(key)` gives, keyed by that set's text. */
function byFollowers<T>(keys: Iterable<T>, next: (key: T) => number[]): Map<string, { keys: T[]; followers: number[] }> {
  const out = new Map<string, { keys: T[]; followers: number[] }>();
  for (const key of keys) {
    const followers = [...new Set(next(key))].sort((a, b) => a - b);
    const id = followers.join(',');
    const entry = out.get(id) ?? { keys: [], followers };
    entry.keys.push(key);
    out.set(id, entry);
  }
  return out;
}

/** One to three bytes: two to four characters. */
function base64urlGroup([x1, x2, x3]: number[][]): string {
  const uniq = (values: number[]) => [...new Set(values)];
  // After the first character, what is left of the first byte: its low 2 bits.
  const first = byFollowers(uniq(x1.map((b) => b >> 2)), (c) => x1.filter((b) => b >> 2 === c).map((b) => b & 3));
  return alternatives(
    [...first.values()].map(({ keys: c1s, followers: low1 }) => {
      if (!x2) return charClass(c1s) + charClass(low1.map((l) => l << 4));
      // After the second character: the low 4 bits of the second byte.
      const second = byFollowers(uniq(x2.map((b) => b >> 4)), (h) => x2.filter((b) => b >> 4 === h).map((b) => b & 15));
      const rest = [...second.values()].map(({ keys: highs, followers: low2 }) => {
        const c2 = charClass(low1.flatMap((l) => highs.map((h) => (l << 4) | h)));
        if (!x3) return c2 + charClass(low2.map((l) => l << 2));
        // After the third character: the low 6 bits of the third byte, the fourth character.
        const third = byFollowers(uniq(x3.map((b) => b >> 6)), (t) => x3.filter((b) => b >> 6 === t).map((b) => b & 63));
        return c2 + alternatives([...third.values()].map(({ keys: tops, followers: low3 }) => charClass(low2.flatMap((l) => tops.map((t) => (l << 2) | t))) + charClass(low3)));
      });
      return charClass(c1s) + alternatives(rest);
    }),
  );
}

/**
 * `?created_after=`'s forms (domain/iso-time.ts) as a pattern: a real date of a year 0001 to 9999,
 * with or without a time and its offset, in the extended or the basic format. The one case it does
 * not say is the instant itself leaving those years by its offset (`0001-01-01T00:00+01:00`), which
 * the format refuses. Digits are `[0-9]`: `\d` is any Unicode digit to some readers of the document.
 */
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';
const isoDate = (sep: string) =>
  `(?:(?!0000)[0-9]{4}${sep}(?:(?:0[13578]|1[02])${sep}(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)${sep}(?:0[1-9]|[12][0-9]|30)|02${sep}(?:0[1-9]|1[0-9]|2[0-8]))|${LEAP_YEAR}${sep}02${sep}29)`;
const HOUR = '(?:[01][0-9]|2[0-3])';
const MINUTE = '[0-5][0-9]';
const isoTime = (sep: string, offsetSep: string) =>
  `[Tt]${HOUR}${sep}${MINUTE}(?:${sep}${MINUTE}(?:[.,][0-9]{1,9})?)?(?:[Zz]|[+\\- ]${HOUR}(?:${offsetSep}${MINUTE})?)`;
export const INSTANT_PATTERN = `^(?:${isoDate('-')}(?:${isoTime(':', ':?')})?|${isoDate('')}(?:${isoTime('', '')})?)$`;

export const text = (description: string, maxLength = MAX_ADDRESS_FIELD) =>
  Type.String({ minLength: 1, maxLength, pattern: TEXT, description });

/**
 * US and CA addresses name one of their own subdivisions (contract: Resources → Address). On a
 * whole address the state is required there; on an edit, a state sent beside such a country must be
 * one of its codes (null and "" clear it, which those countries refuse).
 */
export function stateRules(required: boolean) {
  return [...STATE_REQUIRED].map(([country, codes]) => ({
    if: { properties: { country: { const: country } }, required: required ? ['country'] : ['country', 'state'] },
    then: { ...(required ? { required: ['state'] } : {}), properties: { state: { enum: [...codes] } } },
  }));
}

export const AddressSchema = Type.Object(
  {
    name: text('Contact name'),
    line1: text('First address line'),
    line2: Type.Optional(Type.String({ maxLength: MAX_ADDRESS_FIELD, pattern: OPTIONAL_TEXT, description: 'Second line' })),
    city: text('City'),
    state: Type.Optional(
      Type.String({
        maxLength: MAX_ADDRESS_FIELD,
        pattern: STATE_CODE,
        format: STATE_FORMAT,
        description:
          'ISO 3166-2 subdivision code without the country prefix (`NY`, `ON`), 1 to 3 letters or digits; upper-cased. Required for US and CA addresses, where it must be one of that country\'s states, territories or provinces',
      }),
    ),
    postcode: text('Postcode'),
    country: Type.String({
      pattern: COUNTRY_CODE,
      enum: [...COUNTRY_CODES],
      format: COUNTRY_FORMAT,
      description: 'ISO 3166-1 alpha-2 country code, an assigned one; sent in either case, it is folded to capitals',
    }),
    company: Type.Optional(Type.String({ maxLength: MAX_ADDRESS_FIELD, pattern: OPTIONAL_TEXT, description: 'Company or organisation' })),
    phone: Type.Optional(Type.String({ maxLength: MAX_PHONE, pattern: PHONE_FIELD_PATTERN, description: 'At most 20 characters: digits, spaces and + ( ) -; some carriers need it (UPS abroad)' })),
    email: Type.Optional(Type.String({ maxLength: MAX_ADDRESS_FIELD, format: 'email', description: 'E-mail address' })),
  },
  {
    additionalProperties: false,
    // Said in the schema, so the document states it and one 422 lists it beside every other bad field.
    allOf: stateRules(true),
  },
);
export type AddressInput = Static<typeof AddressSchema>;

const dimension = (description: string, max: number) => Type.Integer({ minimum: 1, maximum: max, description });

export const ParcelSchema = Type.Object(
  {
    weight_g: dimension('Weight in grams', PARCEL_LIMITS.maxWeightG),
    length_mm: dimension('Length in millimetres', PARCEL_LIMITS.maxSideMm),
    width_mm: dimension('Width in millimetres', PARCEL_LIMITS.maxSideMm),
    height_mm: dimension('Height in millimetres', PARCEL_LIMITS.maxSideMm),
  },
  { additionalProperties: false },
);

export const ShipmentParams = Type.Object({ shipment: Type.String() }, { additionalProperties: false });

/** A batch's file format, as a label's. */
export const LabelFormatSchema = Type.Union(LABEL_FORMAT_LIST.map((f) => Type.Literal(f)));

export const BatchParams = Type.Object({ batch: Type.String() }, { additionalProperties: false });

/** `?limit` and `?cursor` of a list of the ids with this prefix. */
export const pageQueryOf = (prefix: CursorPrefix) => ({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(
    Type.String({ maxLength: cursorLength(prefix), pattern: CURSOR_PATTERNS[prefix], description: 'The `next_cursor` of the page before; empty or absent, the first page' }),
  ),
});

export const ListShipmentsQuery = Type.Object(
  {
    ...pageQueryOf('shp'),
    status: Type.Optional(Type.Union(SHIPMENT_STATUSES.map((s) => Type.Literal(s)))),
    batch_id: Type.Optional(Type.String({ maxLength: 100, pattern: OPTIONAL_TEXT, description: 'bat_…: only the shipments of this batch' })),
    // Text without control characters, which no query string may hold (api/hardening.ts).
    reference: Type.Optional(Type.String({ maxLength: 100, pattern: OPTIONAL_TEXT })),
    created_after: Type.Optional(
      Type.String({
        maxLength: 40,
        pattern: INSTANT_PATTERN,
        format: INSTANT_FORMAT,
        description:
          'ISO 8601: a date (midnight UTC) or a date and time with its offset, e.g. 2026-11-24, 2026-11-24T10:00Z, 2026-11-24T10:00:00.000+01:00',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListShipmentsQuery = Static<typeof ListShipmentsQuery>;

/** The query of a list with no filter: `?limit` and `?cursor`. */
export const pageQueryFor = (prefix: CursorPrefix) => Type.Object(pageQueryOf(prefix), { additionalProperties: false });
export type PageQuery = Static<ReturnType<typeof pageQueryFor>>;

export { WEBHOOK_URL_PATTERNS } from './schemas-webhook-url.js';
