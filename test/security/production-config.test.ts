// Item 3 of issue 13: with NODE_ENV=production every process refuses to start on development or
// published values, naming each problem; with real values it starts, and nothing else is required.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CARRIER_MODULES } from '../../carriers/index.js';
import { ConfigError, parseConfig, PUBLISHED_EXAMPLE_VALUES } from '../../config/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const carriers = CARRIER_MODULES.map((m) => m.definition.code);
const fresh = (n = 32) => randomBytes(n).toString('hex');

/** Exactly what production requires, with fresh values. */
function productionEnv(): Record<string, string> {
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    SIGNING_SECRET: fresh(),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    DATABASE_URL: 'postgres://shipping:pw@db.internal:5432/shipping',
    TEMPORAL_ADDRESS: 'temporal.internal:7233',
    CARD_PROCESSOR_URL: 'https://cards.example.net/v1',
    PUBLIC_BASE_URL: 'https://api.parcels.example',
    PAYLOAD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };
  for (const code of carriers) {
    env[`CARRIER_${code.toUpperCase()}_URL`] = `https://${code}.example.net/api`;
    env[`CARRIER_${code.toUpperCase()}_WEBHOOK_SECRET`] = fresh();
  }
  return env;
}

function problemsOf(env: Record<string, string | undefined>): string {
  try {
    parseConfig(env, { carriers });
    return '';
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
}

describe('production configuration', () => {
  it('starts with exactly the required variables, and each one missing is named', () => {
    const env = productionEnv();
    const config = parseConfig(env, { carriers });
    expect(config.production).toBe(true);
    for (const name of Object.keys(env).filter((n) => n !== 'NODE_ENV')) {
      const { [name]: _gone, ...without } = env;
      expect(problemsOf(without), name).toContain(name);
    }
  });

  it("is what the README's Running in production section lists, variable for variable", () => {
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('\n## Running in production\n'), readme.indexOf('\n## ', readme.indexOf('\n## Running in production\n') + 1));
    const listed = [...section.matchAll(/^\| `([A-Z_<>]+)` \|/gm)].map((m) => m[1]);
    const required = Object.keys(productionEnv())
      .filter((n) => n !== 'NODE_ENV')
      .map((n) => n.replace(new RegExp(`^CARRIER_(${carriers.map((c) => c.toUpperCase()).join('|')})_`), 'CARRIER_<CODE>_'));
    // WEBHOOK_ALLOW_PRIVATE is listed because production requires it off.
    expect(new Set(listed)).toEqual(new Set([...required, 'WEBHOOK_ALLOW_PRIVATE']));
    expect(listed).toHaveLength(new Set(listed).size);
  });

  it('refuses development defaults and the values published in deploy/.env.example, naming every problem at once', () => {
    const message = problemsOf({ NODE_ENV: 'production' });
    for (const name of ['SIGNING_SECRET', 'WEBHOOK_SECRET_KEY', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'CARD_PROCESSOR_URL', 'PUBLIC_BASE_URL', 'PAYLOAD_ENCRYPTION_KEY']) {
      expect(message).toContain(name);
    }
    for (const code of carriers) {
      expect(message).toContain(`CARRIER_${code.toUpperCase()}_URL`);
      expect(message).toContain(`CARRIER_${code.toUpperCase()}_WEBHOOK_SECRET`);
    }
    const dev = parseConfig({});
    const withDev = {
      ...productionEnv(),
      SIGNING_SECRET: dev.signingSecret,
      WEBHOOK_SECRET_KEY: dev.webhookSecretKey,
      PAYLOAD_ENCRYPTION_KEY: dev.payloadEncryptionKey,
      CARRIER_ACME_WEBHOOK_SECRET: 'dev-carrier-acme-secret',
    };
    const refused = problemsOf(withDev);
    for (const name of ['SIGNING_SECRET', 'WEBHOOK_SECRET_KEY', 'PAYLOAD_ENCRYPTION_KEY', 'CARRIER_ACME_WEBHOOK_SECRET']) expect(refused).toContain(name);

    const example = Object.fromEntries(
      readFileSync(`${ROOT}deploy/.env.example`, 'utf8')
        .split('\n')
        .map((l) => /^\s*#?\s*([A-Z0-9_]+)=(.+)$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[1], m[2].trim()]),
    );
    const fromExample = { ...productionEnv(), ...example, NODE_ENV: 'production' };
    const exampleProblems = problemsOf(fromExample);
    for (const name of ['SIGNING_SECRET', 'WEBHOOK_SECRET_KEY', 'PAYLOAD_ENCRYPTION_KEY']) expect(exampleProblems).toContain(name);
    // Every secret the example publishes is on the refused list (the list and the file stay in step).
    for (const [name, value] of Object.entries(example)) {
      if (/SECRET|PASSWORD|KEY/.test(name)) expect(PUBLISHED_EXAMPLE_VALUES, name).toContain(value);
    }
  });

  it('refuses short secrets, a plain-http public origin, a malformed payload key and private webhooks', () => {
    const message = problemsOf({
      ...productionEnv(),
      SIGNING_SECRET: 'short-but-16-chars',
      PUBLIC_BASE_URL: 'http://api.parcels.example',
      PAYLOAD_ENCRYPTION_KEY: 'bm90LTMyLWJ5dGVz',
      WEBHOOK_ALLOW_PRIVATE: '1',
    });
    for (const name of ['SIGNING_SECRET', 'PUBLIC_BASE_URL', 'PAYLOAD_ENCRYPTION_KEY', 'WEBHOOK_ALLOW_PRIVATE']) expect(message).toContain(name);
  });

  it('refuses a public origin whose signed label links would break (a query, a fragment, credentials), and takes a path prefix', () => {
    for (const value of ['https://api.parcels.example/?x=1', 'https://api.parcels.example#top', 'https://user:pw@api.parcels.example']) {
      expect(problemsOf({ ...productionEnv(), PUBLIC_BASE_URL: value }), value).toContain('PUBLIC_BASE_URL');
    }
    for (const value of ['https://api.parcels.example', 'https://api.parcels.example/', 'https://parcels.example/shipping']) {
      expect(problemsOf({ ...productionEnv(), PUBLIC_BASE_URL: value }), value).not.toContain('PUBLIC_BASE_URL');
    }
  });

  it('names an invalid value in the same refusal as the production problems, so one restart fixes them all', () => {
    const { SIGNING_SECRET: _gone, ...env } = productionEnv();
    const message = problemsOf({ ...env, PORT: 'abc', PUBLIC_BASE_URL: 'ftp://parcels.example', WEBHOOK_SECRET_KEY: 'short' });
    expect(message).toMatch(/^refusing to start in production:/);
    for (const name of ['SIGNING_SECRET', 'PUBLIC_BASE_URL', 'WEBHOOK_SECRET_KEY', 'PORT']) expect(message).toContain(`- ${name} `);
    // A variable production already names is not named twice, and a secret's value is never shown.
    expect(message.match(/PUBLIC_BASE_URL/g)).toHaveLength(1);
    expect(message).not.toContain('"short"');
  });

  it('never sends a live carrier to the simulator in production', () => {
    const dev = carrierRegistryFor(parseConfig({}));
    expect(() => dev.adapter('acme', true)).not.toThrow();
    const { CARRIER_ACME_URL: _acme, ...env } = productionEnv();
    // Even a configuration built around the checks (a test or a script) gets no simulator fallback.
    const config = { ...parseConfig(productionEnv(), { carriers }), carrierUrls: { swiftpost: env.CARRIER_SWIFTPOST_URL } };
    expect(() => carrierRegistryFor(config).adapter('acme', true)).toThrow(/no base URL/);
  });

  it.each([
    ['the API', ['api/main.ts']],
    ['a worker', ['workers/main.ts', 'all']],
    ['the admin command', ['admin/main.ts', 'key', 'revoke', 'key_x']],
  ])('%s refuses to start in production with development values, naming each problem', (_name, args) => {
    const { CARRIER_SWIFTPOST_URL: _gone, ...env } = productionEnv();
    const run = spawnSync(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env, SIGNING_SECRET: 'dev-only-signing-secret-change-me', DATA_DIR: `/tmp/never-${fresh(4)}` },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain('SIGNING_SECRET');
    expect(run.stderr).toContain('CARRIER_SWIFTPOST_URL');
    expect(run.stdout).toBe('');
  });
});
