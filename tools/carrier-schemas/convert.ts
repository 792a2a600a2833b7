import { fromSchema } from '@openapi-contrib/openapi-schema-to-json-schema';
import { isObject, type Json, type JsonObject } from './document.js';

/**
 * One OpenAPI 3.0 Schema Object as JSON Schema draft-07, by @openapi-contrib/openapi-schema-to-json-schema
 * (`nullable`, the numeric formats' bounds, `example`, `xml`, `readOnly`…); then the two things it leaves
 * in draft-04 form: a boolean `exclusiveMinimum`/`exclusiveMaximum` becomes the bound itself. Vendor
 * extensions (`x-…`) are documentation, not validation, and are dropped, as are empty (null)
 * descriptions. `$ref`s are left as they are.
 */
export function toJsonSchema(schema: JsonObject): JsonObject {
  const converted = fromSchema(schema, { strictMode: false, afterTransform: (s) => tidy(s as JsonObject) }) as JsonObject;
  delete converted.$schema;
  return converted;
}

function tidy(schema: JsonObject): JsonObject {
  for (const key of Object.keys(schema)) if (key.startsWith('x-')) delete schema[key];
  // YAML reads an empty `description:` as null; it says nothing, and JSON Schema wants text there.
  for (const key of ['description', 'title']) if (schema[key] === null) delete schema[key];
  // `additionalProperties: false` beside an `allOf`, or in one of its parts, refuses the properties the
  // other parts define, so no object could pass; the documents (USPS's) mean one closed object made of
  // the parts. It is dropped there: a request is checked closed anyway (carriers/carrier-schemas.ts).
  if (Array.isArray(schema.allOf)) {
    if (schema.additionalProperties === false) delete schema.additionalProperties;
    for (const part of schema.allOf) if (isObject(part) && part.additionalProperties === false) delete part.additionalProperties;
  }
  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof schema[flag] !== 'boolean') continue;
    if (schema[flag] === true && typeof schema[bound] === 'number') {
      schema[flag] = schema[bound];
      delete schema[bound];
    } else {
      delete schema[flag];
    }
  }
  return schema;
}

/** Every `$ref` string in a JSON value, in document order. */
export function refsIn(value: Json, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, out);
  else if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') out.push(inner);
      else refsIn(inner, out);
    }
  }
  return out;
}

/** The same value with each `$ref` string passed through `rewrite`. */
export function rewriteRefs(value: Json, rewrite: (ref: string) => string): Json {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, rewrite));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) out[key] = key === '$ref' && typeof inner === 'string' ? rewrite(inner) : rewriteRefs(inner, rewrite);
  return out;
}
