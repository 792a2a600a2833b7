import { Ajv } from 'ajv';
import type { TSchema } from '@sinclair/typebox';

/** An ajv validator of our UPS schemas: every error at once, no coercion, as a strict server would. */
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false });
const compiled = new WeakMap<TSchema, ReturnType<Ajv['compile']>>();

/** The schema's errors for a value, as `path message` lines; empty when it is valid. */
export function schemaErrors(schema: TSchema, value: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}
