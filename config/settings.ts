/**
 * Settings from environment variables, described as TypeBox schemas: each variable's type, default
 * and bounds live in its schema (schema.ts, tools/tooling-config.ts), and this file reads the
 * strings, applies the defaults, checks the bounds and says what is wrong in the variable's own words.
 */
import { FormatRegistry, Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { isValidCidr } from '../domain/index.js';
import type { Env } from './env.js';

export class ConfigError extends Error {}

/** Extra annotations of a variable's schema. */
interface Annotations {
  /** What the value must be, completing "<NAME> must …" (strings and lists). */
  must?: string;
  /** Never echo the value in a message. */
  secret?: boolean;
}

/** 32 bytes, base64 (payload keys). */
export const KEY32_PATTERN = '^[A-Za-z0-9+/]{43}=$';

FormatRegistry.Set('config-url', (value) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
});
FormatRegistry.Set('config-cidr', (value) => isValidCidr(value));

/** Helpers that declare one variable each. */
export const setting = {
  /** A whole number within bounds; the environment's text is read as decimal digits only. */
  int: (o: { default?: number; min: number; max?: number; description: string }) =>
    Type.Integer({ minimum: o.min, ...(o.max === undefined ? {} : { maximum: o.max }), ...(o.default === undefined ? {} : { default: o.default }), description: o.description }),
  port: (fallback: number, description: string) => setting.int({ default: fallback, min: 0, max: 65535, description }),
  text: (o: { default?: string; description: string; must?: string; pattern?: string; format?: string; minLength?: number; secret?: boolean }) =>
    Type.String({ ...o, must: o.must ?? 'be set' }),
  url: (o: { default?: string; description: string }) => Type.String({ ...o, format: 'config-url', must: 'be an http(s) URL' }),
  /** Comma-separated values. */
  list: <T extends TSchema>(item: T, o: { description: string; must: string; secret?: boolean }) => Type.Array(item, { default: [], ...o }),
  oneOf: <T extends string>(values: readonly T[], o: { default: T; description: string }) =>
    Type.Union(values.map((v) => Type.Literal(v)), { ...o, must: `be one of ${values.join(', ')}` }),
};

/** The variables a schema knows, as typed values: integers as numbers, lists split on commas. */
export function readVariables(schema: TObject, env: Env): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const raw = env[name];
    // Unset and empty are the same: the default applies.
    if (raw === undefined || raw === '') continue;
    if (property.type === 'integer') input[name] = /^\d+$/.test(raw) ? Number(raw) : raw;
    else if (property.type === 'array') input[name] = raw.split(',').map((s) => s.trim()).filter(Boolean);
    else input[name] = raw;
  }
  return input;
}

/** Errors of `value` against `schema`, by variable, in the schema's order. */
export function errorsByVariable(schema: TObject, value: unknown): Map<string, ValueError[]> {
  const byName = new Map<string, ValueError[]>();
  for (const error of Value.Errors(schema, value)) {
    const name = error.path.split('/')[1] ?? '';
    byName.set(name, [...(byName.get(name) ?? []), error]);
  }
  return byName;
}

/** What a variable must be, from its schema: "a whole number ≥ 1", "one of info, warn", … */
export function requirement(property: TSchema): string {
  if (property.type === 'integer') {
    return property.maximum === undefined
      ? `be a whole number ≥ ${property.minimum}`
      : `be a whole number from ${property.minimum} to ${property.maximum}`;
  }
  return (property as Annotations).must ?? 'be valid';
}

/**
 * Reads `env` against `schema`: defaults applied, and one sentence per invalid variable naming its
 * bound (and its value, unless secret), by variable.
 */
export function checkSettings(schema: TObject, env: Env): { values: Record<string, unknown>; problems: Map<string, string> } {
  const values = Value.Default(schema, readVariables(schema, env)) as Record<string, unknown>;
  const problems = new Map<string, string>();
  for (const name of errorsByVariable(schema, values).keys()) {
    const property = schema.properties[name];
    const shown = (property as Annotations).secret ? '' : `, got "${env[name]}"`;
    problems.set(name, `${name} must ${requirement(property)}${shown}`);
  }
  return { values, problems };
}

/** `checkSettings`, throwing a ConfigError that lists every problem at once. */
export function parseSettings(schema: TObject, env: Env): Record<string, unknown> {
  const { values, problems } = checkSettings(schema, env);
  const list = [...problems.values()];
  if (list.length === 1) throw new ConfigError(list[0]);
  if (list.length) throw new ConfigError(`invalid configuration:\n  - ${list.join('\n  - ')}`);
  return values;
}
