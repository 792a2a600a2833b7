import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

// The carriers' documents use `format: email`; TypeBox knows no format until one is registered.
if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value));

/**
 * Every way a request breaks one of our carrier schemas, as `path message` lines; empty when it
 * fits. The simulators refuse such a request as the carrier would (a 400), so a request our
 * adapter should never send fails loudly in every test and in development.
 */
export function requestProblems(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].map((e) => `${e.path || '/'} ${e.message}`);
}
