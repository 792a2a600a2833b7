/**
 * What a production process (NODE_ENV=production) refuses to start without, as a schema over the same
 * variables as schema.ts. A value that anyone can read (a development default in this
 * repository, or an example from deploy/.env.example) protects nothing, so it counts as missing.
 * Every problem is named at once, so one restart fixes them all.
 */
import { FormatRegistry, Type, type TSchema } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/value';
import { carrierSettingVariable, type CarrierSettings } from '../domain/index.js';
import type { Env } from './env.js';
import { errorsByVariable, KEY32_PATTERN, readVariables } from './settings.js';

/** Development defaults of config/config.ts: valid outside production only. */
export const DEV_SIGNING_SECRET = 'dev-only-signing-secret-change-me';
export const DEV_WEBHOOK_SECRET_KEY = 'ZGV2LW9ubHktd2ViaG9vay1zZWNyZXQta2V5LTMyYiE=';
/** 32 bytes, base64: "dev-only-payload-key-32-bytes!!!". */
export const DEV_PAYLOAD_ENCRYPTION_KEY = 'ZGV2LW9ubHktcGF5bG9hZC1rZXktMzItYnl0ZXMhISE=';
/** The shared secret a carrier pushes scans with in development (`CARRIER_<CODE>_WEBHOOK_SECRET` unset). */
export const devCarrierWebhookSecret = (code: string) => `dev-carrier-${code}-secret`;

/**
 * Every value published in deploy/.env.example (test/security/production-config.test.ts keeps this
 * list and that file in step): a fleet started from the example must not run as production.
 */
export const PUBLISHED_EXAMPLE_VALUES: readonly string[] = [
  'example-postgres-password-change-me',
  'example-shipping-db-password-change-me',
  'example-signing-secret-change-me-0123456789abcdef',
  'ZXhhbXBsZS13ZWJob29rLWtleS1jaGFuZ2UtbWUtMzJi',
  'ZXhhbXBsZS1wYXlsb2FkLWtleS1jaGFuZ2UtbWUtMzI=',
  'example-carrier-acme-webhook-secret-change-me',
  'example-carrier-swiftpost-webhook-secret-change-me',
];

const DEV_VALUES = [DEV_SIGNING_SECRET, DEV_WEBHOOK_SECRET_KEY, DEV_PAYLOAD_ENCRYPTION_KEY];
FormatRegistry.Set(
  'config-unpublished',
  (value) => !DEV_VALUES.includes(value) && !PUBLISHED_EXAMPLE_VALUES.includes(value) && !/^dev-carrier-[a-z0-9]+-secret$/.test(value),
);

/** The 32 bytes of a base64 key, or undefined when it is not exactly that. */
export function decodeKey32(value: string): Buffer | undefined {
  if (!new RegExp(KEY32_PATTERN).test(value)) return undefined;
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

const MIN_SECRET_LENGTH = 32;

/** A rule: the schema a production value must meet, the hint when it is missing, and what else it must be. */
const rule = (schema: TSchema, o: { unset?: string; must?: string } = {}) => ({ ...schema, unset: o.unset ?? '', must: o.must });
const fresh = (minLength = MIN_SECRET_LENGTH) => rule(Type.String({ format: 'config-unpublished', minLength }));
const present = (unset?: string) => rule(Type.String(), { unset });

/** The production schema; `carriers` are the codes of every registered carrier (carriers/registry.ts). */
function productionSchema(carriers: readonly string[]) {
  const perCarrier: Record<string, TSchema> = {};
  for (const code of carriers) {
    const upper = code.toUpperCase();
    perCarrier[`CARRIER_${upper}_URL`] = present(' (live carriers never fall back to the simulator)');
    perCarrier[`CARRIER_${upper}_WEBHOOK_SECRET`] = fresh();
  }
  return Type.Object({
    SIGNING_SECRET: fresh(),
    WEBHOOK_SECRET_KEY: fresh(),
    DATABASE_URL: present(),
    TEMPORAL_ADDRESS: present(),
    CARD_PROCESSOR_URL: present(),
    // Signed label links are this value followed by a path: a query or a fragment in it would break every one.
    PUBLIC_BASE_URL: rule(Type.String({ pattern: '^https://[^/\\s?#@]+(/[^\\s?#]*)?$' }), {
      unset: ' (the https origin customers reach)',
      must: 'be an https URL with no query, fragment or credentials',
    }),
    ...perCarrier,
    PAYLOAD_ENCRYPTION_KEY: rule(Type.String({ format: 'config-unpublished', pattern: KEY32_PATTERN }), {
      unset: ' (32 bytes, base64)',
      must: 'be 32 bytes, base64 (openssl rand -base64 32)',
    }),
    WEBHOOK_ALLOW_PRIVATE: Type.Optional(rule(Type.Literal('0'), { must: 'be off' })),
  });
}

/**
 * The problems that keep a production process from starting, each one sentence naming its variable:
 * unset, a published value, too short, or not of the required form, in that order of precedence.
 * By variable, as `checkSettings` gives the invalid ones.
 */
export function productionProblems(env: Env, carriers: readonly string[]): Map<string, string> {
  const schema = productionSchema(carriers);
  const problems = new Map<string, string>();
  for (const [name, errors] of errorsByVariable(schema, readVariables(schema, env))) {
    const property = (schema.properties as Record<string, TSchema>)[name] as TSchema & { unset: string; must?: string };
    const has = (type: ValueErrorType, format?: string) => errors.some((e) => e.type === type && (!format || e.schema.format === format));
    if (has(ValueErrorType.ObjectRequiredProperty)) problems.set(name, `${name} must be set${property.unset}`);
    else if (has(ValueErrorType.StringFormat, 'config-unpublished')) problems.set(name, `${name} is a published development or example value; generate a fresh one`);
    else if (has(ValueErrorType.StringMinLength)) problems.set(name, `${name} must be ${property.minLength} characters at least`);
    else problems.set(name, `${name} must ${property.must}`);
  }
  return problems;
}

/** The variables that turn a real carrier on together: its URL and each of its required settings. */
export function requiredCarrierVariables({ code, settings }: CarrierSettings): string[] {
  return [carrierSettingVariable(code, 'URL'), ...settings.filter((s) => s.required).map((s) => carrierSettingVariable(code, s.suffix))];
}

/**
 * A real carrier set up in part: each variable it still needs, named. None set leaves the carrier
 * off; all set turns it on; anything between is a deployment mistake a production process refuses.
 */
export function partialCarrierProblems(env: Env, carriers: readonly CarrierSettings[]): Map<string, string> {
  const problems = new Map<string, string>();
  for (const carrier of carriers) {
    const names = requiredCarrierVariables(carrier);
    const missing = names.filter((name) => !env[name]);
    if (missing.length === 0 || missing.length === names.length) continue;
    for (const name of missing) {
      problems.set(name, `${name} must be set: ${carrier.code.toUpperCase()} is enabled only with all of ${names.join(', ')} (or none of them)`);
    }
  }
  return problems;
}
