/**
 * What a production process (NODE_ENV=production) refuses to start without. A value that anyone can
 * read (a development default in this repository, or an example from deploy/.env.example) protects
 * nothing, so it counts as missing. Every problem is named at once, so one restart fixes them all.
 */

type Env = Record<string, string | undefined>;

/** Development defaults of domain/config.ts: valid outside production only. */
export const DEV_SIGNING_SECRET = 'dev-only-signing-secret-change-me';
export const DEV_WEBHOOK_SECRET_KEY = 'ZGV2LW9ubHktd2ViaG9vay1zZWNyZXQta2V5LTMyYiE=';
/** 32 bytes, base64: "dev-only-payload-key-32-bytes!!!". */
export const DEV_PAYLOAD_ENCRYPTION_KEY = 'ZGV2LW9ubHktcGF5bG9hZC1rZXktMzItYnl0ZXMhISE=';
/** The shared secret a carrier pushes scans with in development (`CARRIER_<CODE>_WEBHOOK_SECRET` unset). */
export const devCarrierWebhookSecret = (code: string) => `dev-carrier-${code}-secret`;

/**
 * Every value published in deploy/.env.example (test/config/production.test.ts keeps this list and
 * that file in step): a fleet started from the example must not run as production.
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

const MIN_SECRET_LENGTH = 32;

/** The 32 bytes of a base64 key, or undefined when it is not exactly that. */
export function decodeKey32(value: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]{43}=$/.test(value)) return undefined;
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

function isPublic(value: string, devDefaults: string[]): boolean {
  return devDefaults.includes(value) || PUBLISHED_EXAMPLE_VALUES.includes(value);
}

/**
 * The problems that keep a production process from starting, each one sentence naming its variable.
 * `carriers` are the codes of every registered carrier (carriers/registry.ts).
 */
export function productionProblems(env: Env, carriers: readonly string[]): string[] {
  const problems: string[] = [];
  const devCarrierSecrets = carriers.map(devCarrierWebhookSecret);
  const secret = (name: string, devDefault: string, minLength: number) => {
    const value = env[name];
    if (!value) problems.push(`${name} must be set`);
    else if (isPublic(value, [devDefault, ...devCarrierSecrets])) problems.push(`${name} is a published development or example value; generate a fresh one`);
    else if (value.length < minLength) problems.push(`${name} must be ${minLength} characters at least`);
  };
  secret('SIGNING_SECRET', DEV_SIGNING_SECRET, MIN_SECRET_LENGTH);
  secret('WEBHOOK_SECRET_KEY', DEV_WEBHOOK_SECRET_KEY, MIN_SECRET_LENGTH);
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'CARD_PROCESSOR_URL']) {
    if (!env[name]) problems.push(`${name} must be set`);
  }
  const base = env.PUBLIC_BASE_URL;
  if (!base) problems.push('PUBLIC_BASE_URL must be set (the https origin customers reach)');
  else if (!/^https:\/\/[^/\s]+/i.test(base)) problems.push('PUBLIC_BASE_URL must be an https URL');
  for (const code of carriers) {
    const upper = code.toUpperCase();
    if (!env[`CARRIER_${upper}_URL`]) problems.push(`CARRIER_${upper}_URL must be set (live carriers never fall back to the simulator)`);
    secret(`CARRIER_${upper}_WEBHOOK_SECRET`, devCarrierWebhookSecret(code), MIN_SECRET_LENGTH);
  }
  const payloadKey = env.PAYLOAD_ENCRYPTION_KEY;
  if (!payloadKey) problems.push('PAYLOAD_ENCRYPTION_KEY must be set (32 bytes, base64)');
  else if (isPublic(payloadKey, [DEV_PAYLOAD_ENCRYPTION_KEY])) problems.push('PAYLOAD_ENCRYPTION_KEY is a published development or example value; generate a fresh one');
  else if (!decodeKey32(payloadKey)) problems.push('PAYLOAD_ENCRYPTION_KEY must be 32 bytes, base64 (openssl rand -base64 32)');
  if (env.WEBHOOK_ALLOW_PRIVATE && env.WEBHOOK_ALLOW_PRIVATE !== '0') problems.push('WEBHOOK_ALLOW_PRIVATE must be off');
  return problems;
}
