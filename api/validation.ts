import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

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
  formats(body);
  formats(text);
  return ({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema);
}
