import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import formatsModule from 'ajv-formats/dist/formats.js';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { isCountryCode, parseIsoInstant } from '../domain/index.js';
import { COUNTRY_FORMAT, INSTANT_FORMAT, STATE_FORMAT } from './schemas.js';

type StringFormat = { type?: 'string'; validate: (value: string) => boolean; compare?: (a: string, b: string) => number | undefined };
const rfc3339 = (formatsModule as unknown as { fullFormats: Record<string, StringFormat> }).fullFormats['date-time'];
const FIRST_INSTANT = new Date('0001-01-01T00:00:00Z').getTime();
const LAST_INSTANT = new Date('9999-12-31T23:59:59.999Z').getTime();

/**
 * RFC 3339 date-times that name an instant we can use: years 0001 to 9999 once in UTC (what
 * PostgreSQL and ISO strings round-trip), and no leap second (JavaScript has no 23:59:60). The
 * plain format takes `0000-01-01T00:00:00Z` or `…T23:59:60Z`, which no query can use (a 500).
 */
const dateTime: StringFormat = {
  type: 'string',
  validate: (value) => {
    if (!rfc3339.validate(value)) return false;
    const at = Date.parse(value);
    return Number.isFinite(at) && at >= FIRST_INSTANT && at <= LAST_INSTANT;
  },
  compare: rfc3339.compare,
};

/**
 * An assigned country code, as the schema's enum says (the value is folded to capitals before
 * validation, api/hardening.ts); text that is not two letters is the pattern's to refuse.
 */
const country: StringFormat = { type: 'string', validate: (value) => !/^[A-Z]{2}$/.test(value) || isCountryCode(value) };

/** `?created_after=`'s ISO 8601 forms, read by the parser the route then uses (domain/iso-time.ts). */
const instant: StringFormat = { type: 'string', validate: (value) => parseIsoInstant(value) !== undefined };

/**
 * Bodies are validated strictly: no type coercion (a weight of "100" is an error), every error at
 * once, unknown fields refused. Query strings and path parameters are text, so they are coerced.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<any> {
  const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };
  const body = new Ajv({ ...common, coerceTypes: false });
  const text = new Ajv({ ...common, coerceTypes: 'array' });
  // ajv-formats is CommonJS: its function sits on `default` when imported from ESM.
  const formats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;
  for (const ajv of [body, text]) {
    formats(ajv);
    ajv.addFormat('date-time', dateTime);
    ajv.addFormat(COUNTRY_FORMAT, country);
    ajv.addFormat(INSTANT_FORMAT, instant);
    // Any text: its shape is the pattern's, its codes the address's `allOf` (api/schemas.ts).
    ajv.addFormat(STATE_FORMAT, { type: 'string', validate: () => true });
  }
  return ({ schema, httpPart }) => (httpPart === 'body' ? body.compile(schema) : strictIntegers(schema, text.compile(schema)));
}

/**
 * Coercion takes whatever JavaScript reads as a number (`?limit=0x10` is 16, `1e1` 10, ` 5` 5); an
 * integer in a query string or a path is written in decimal digits, or it is refused as not one.
 */
function strictIntegers(schema: { properties?: Record<string, { type?: unknown }> }, validate: ValidateFunction): ValidateFunction {
  const integers = Object.entries(schema.properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
  if (!integers.length) return validate;
  const strict = ((data: Record<string, unknown> | undefined) => {
    const loose = integers.filter((name) => typeof data?.[name] === 'string' && !/^-?\d{1,15}$/.test(data[name] as string));
    const valid = validate(data);
    if (!loose.length) {
      strict.errors = validate.errors;
      return valid;
    }
    // The other fields' errors too (errors[] lists each); the loose integers' own replace whatever coercion made of them.
    const others = (validate.errors ?? []).filter((e) => !loose.some((name) => e.instancePath === `/${name}`));
    strict.errors = [
      ...loose.map((name) => ({ instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: { type: 'integer' }, message: 'must be integer' })),
      ...others,
    ];
    return false;
  }) as ValidateFunction;
  return strict;
}

/**
 * A route of the API that takes no query parameters refuses one (422 naming it, `querystring.foo`),
 * as the lists and every body refuse a field they do not know: `GET /account/balance?foo=1` or a
 * misspelt parameter on a read is never answered as if it were not there. Routes registered after this
 * hook only (every API route).
 */
export function refuseUnknownQuery(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.scope || route.schema?.querystring) return;
    route.schema = { ...route.schema, querystring: Type.Object({}, { additionalProperties: false }) };
  });
}
