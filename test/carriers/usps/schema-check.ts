import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { USPS_SCHEMAS } from '../../../carriers/usps/schemas.js';

// ajv-formats is CommonJS: its function sits on `default` when imported from ESM.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
const compiled = new Map<TSchema, ValidateFunction>();

/** Every way `value` breaks the schema, as `path message` lines; empty when it fits. */
export function schemaProblems(schema: TSchema, value: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}

/** The same, by the schema's name in USPS_SCHEMAS (the simulator's validation hook takes names). */
export function namedSchemaProblems(name: string, value: unknown): string[] {
  const schema = USPS_SCHEMAS[name];
  if (!schema) return [`no schema named ${name}`];
  return schemaProblems(schema, value);
}
