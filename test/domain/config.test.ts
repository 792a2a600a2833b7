// The configuration schema (config/schema.ts): the documented defaults, each bound refused with a
// message naming the variable and the bound, every problem at once, and the production rules.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REAL_CARRIER_SETTINGS } from '../../carriers/index.js';
import { CONFIG_VARIABLES, ConfigError, isConfigVariable, parseConfig, realCarrierVariables } from '../../config/index.js';
import { isToolingVariable, TOOLING_VARIABLE_NAMES } from '../../tools/tooling-config.js';

/** The operator's guide holds the Configuration table. */
const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

const refusal = (env: Record<string, string>) => {
  try {
    parseConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
};

describe('configuration defaults', () => {
  it('are the documented defaults (README.md#configuration)', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      dataDir: '.data',
      databaseUrl: undefined,
      temporalAddress: undefined,
      temporalNamespace: 'default',
      publicBaseUrl: 'http://localhost:3000',
      purchaseWaitMs: 20_000,
      purchaseDeadlineMs: 900_000,
      labelUrlTtlSeconds: 300,
      webhookAllowPrivate: false,
      logLevel: 'info',
      carrierSimPort: 4010,
      carrierUrls: {},
      carrierTimeoutMs: 5000,
      cardProcessorUrl: 'http://127.0.0.1:4010/cardpay/v1',
      trustedProxies: [],
      taskQueuePrefix: '',
      trackingPollMinMs: 15 * 60_000,
      trackingPollMaxMs: 12 * 3600_000,
      temporalUiUrl: 'http://localhost:8233',
      worker: { maxConcurrentActivities: 100, maxConcurrentWorkflowTasks: 40, maxCachedWorkflows: 1000, shutdownGraceMs: 30_000, metricsPort: 0, deploymentName: 'parcel-shipping', buildId: undefined, workflowBundlePath: undefined },
      apiShutdownGraceMs: 30_000,
      requestTimeoutMs: 30_000,
      payloadDecryptionKeys: [],
      addressRateLimit: { count: 100, seconds: 10 },
      codecPort: 8888,
      codecHost: '127.0.0.1',
      production: false,
      tracing: { enabled: false },
    });
    // PUBLIC_BASE_URL follows PORT; the card processor follows the simulator's port.
    expect(parseConfig({ PORT: '3100', CARRIER_SIM_PORT: '4100' })).toMatchObject({ publicBaseUrl: 'http://localhost:3100', cardProcessorUrl: 'http://127.0.0.1:4100/cardpay/v1' });
    // Empty is unset.
    expect(parseConfig({ PORT: '', LOG_LEVEL: '', PAYLOAD_DECRYPTION_KEYS: '' })).toMatchObject({ port: 3000, logLevel: 'info', payloadDecryptionKeys: [] });
  });

  it('reads lists, per-carrier variables and the production bundle path', () => {
    const c = parseConfig({
      TRUSTED_PROXIES: '10.0.0.0/8, ::1/128,',
      CARRIER_ACME_URL: 'https://acme.example/v2/',
      CARRIER_SWIFTPOST_RPS: '7',
      CARRIER_ACME_WEBHOOK_SECRET: 'push-secret',
      ADDRESS_RATE_LIMIT: '30/60',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    expect(c.trustedProxies).toEqual(['10.0.0.0/8', '::1/128']);
    expect(c.carrierUrls).toEqual({ acme: 'https://acme.example/v2/' });
    expect(c.carrierRateLimits).toEqual({ swiftpost: 7 });
    expect(c.carrierWebhookSecrets).toEqual({ acme: 'push-secret' });
    expect(c.addressRateLimit).toEqual({ count: 30, seconds: 60 });
    expect(c.tracing.enabled).toBe(true);
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).tracing.enabled).toBe(false);
  });

  it("is the README's Configuration table, variable for variable (the contract documents it there)", () => {
    const table = README.slice(README.indexOf('\n## Configuration\n'), README.indexOf('\n## Running in production\n'));
    const names = [...table.matchAll(/`([A-Z][A-Z0-9_<>]*)`/g)].map((m) => m[1].replace('<CODE>', 'ACME'));
    expect(names.length).toBeGreaterThan(30);
    // The OpenTelemetry exporter reads the other standard OTEL_* variables itself.
    for (const name of names.filter((n) => !n.startsWith('OTEL_') || n === 'OTEL_EXPORTER_OTLP_ENDPOINT')) expect(isConfigVariable(name, REAL_CARRIER_SETTINGS) || isToolingVariable(name), name).toBe(true);
    // And every variable a process reads is there.
    const listed = new Set(names.map((n) => n.replace('_ACME_', '_<CODE>_')));
    for (const name of Object.keys({ ...CONFIG_VARIABLES, ...realCarrierVariables(REAL_CARRIER_SETTINGS) })) expect(listed.has(name) || listed.has(name.replace(/^CARRIER_[A-Z]+_/, 'CARRIER_<CODE>_')), name).toBe(true);
  });

  it("has the tooling's variables too (start, fleet, chaos, the tests), each in the README's Configuration section", () => {
    const section = README.slice(README.indexOf('\n## Configuration\n'), README.indexOf('\n## Running in production\n'));
    for (const name of TOOLING_VARIABLE_NAMES.filter((n) => n !== 'PATH')) expect(section, name).toContain(`\`${name}\``);
  });
});

describe('configuration bounds', () => {
  it('refuses each whole number below its minimum, naming the variable and the bound', () => {
    for (const [name, schema] of Object.entries(CONFIG_VARIABLES)) {
      if (schema.type !== 'integer') continue;
      expect(refusal({ [name]: 'ten' }), name).toBe(`${name} must be a whole number ${schema.maximum === undefined ? `≥ ${schema.minimum}` : `from ${schema.minimum} to ${schema.maximum}`}, got "ten"`);
      if (schema.minimum > 0) expect(refusal({ [name]: String(schema.minimum - 1) }), name).toContain(`${name} must be a whole number`);
      expect(() => parseConfig({ [name]: String(schema.minimum) }), name).not.toThrow();
    }
    expect(refusal({ PORT: '65536' })).toBe('PORT must be a whole number from 0 to 65535, got "65536"');
    expect(refusal({ PURCHASE_DEADLINE_MS: '999' })).toBe('PURCHASE_DEADLINE_MS must be a whole number ≥ 1000, got "999"');
    expect(refusal({ CARRIER_ACME_RPS: '0' })).toBe('CARRIER_ACME_RPS must be a whole number ≥ 1, got "0"');
  });

  it('refuses malformed text values, never echoing a secret', () => {
    expect(refusal({ LOG_LEVEL: 'loud' })).toBe('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"');
    expect(refusal({ WEBHOOK_ALLOW_PRIVATE: 'yes' })).toBe('WEBHOOK_ALLOW_PRIVATE must be one of 0, 1, got "yes"');
    expect(refusal({ ADDRESS_RATE_LIMIT: '0/10' })).toContain('ADDRESS_RATE_LIMIT must look like 100/10');
    expect(refusal({ TRUSTED_PROXIES: '10.0.0.0/8,10.0.0.0/33' })).toContain('TRUSTED_PROXIES must list CIDR blocks');
    expect(refusal({ PUBLIC_BASE_URL: 'api.example.com' })).toContain('PUBLIC_BASE_URL must be an http(s) URL');
    expect(refusal({ CARRIER_ACME_URL: 'ftp://acme' })).toContain('CARRIER_ACME_URL must be an http(s) URL');
    expect(refusal({ PAYLOAD_ENCRYPTION_KEY: 'c2hvcnQ=' })).toBe('PAYLOAD_ENCRYPTION_KEY must be 32 bytes, base64');
    expect(refusal({ PAYLOAD_DECRYPTION_KEYS: 'c2hvcnQ=' })).toBe('PAYLOAD_DECRYPTION_KEYS must list keys of 32 bytes, base64, separated by commas');
    expect(refusal({ SIGNING_SECRET: 'too-short' })).toBe('SIGNING_SECRET must be 16 characters at least');
  });

  it('names every problem at once', () => {
    const message = refusal({ PORT: 'x', LOG_LEVEL: 'loud', CARRIER_TIMEOUT_MS: '1' });
    expect(message.split('\n')).toEqual([
      'invalid configuration:',
      '  - PORT must be a whole number from 0 to 65535, got "x"',
      '  - LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      '  - CARRIER_TIMEOUT_MS must be a whole number ≥ 100, got "1"',
    ]);
  });
});

describe('production rules', () => {
  it('refuses unset, published and short values and plain http, each named once', () => {
    const message = refusal({
      NODE_ENV: 'production',
      SIGNING_SECRET: 'dev-only-signing-secret-change-me',
      WEBHOOK_SECRET_KEY: 'x'.repeat(31),
      PUBLIC_BASE_URL: 'http://api.example.com',
      WEBHOOK_ALLOW_PRIVATE: '1',
    });
    expect(message).toContain('refusing to start in production');
    expect(message).toContain('SIGNING_SECRET is a published development or example value; generate a fresh one');
    expect(message).toContain('WEBHOOK_SECRET_KEY must be 32 characters at least');
    expect(message).toContain('DATABASE_URL must be set');
    expect(message).toContain('PUBLIC_BASE_URL must be an https URL');
    expect(message).toContain('PAYLOAD_ENCRYPTION_KEY must be set (32 bytes, base64)');
    expect(message).toContain('WEBHOOK_ALLOW_PRIVATE must be off');
    expect(message.match(/SIGNING_SECRET/g)).toHaveLength(1);
  });
});
