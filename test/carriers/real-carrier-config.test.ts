import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CARRIER_MODULES, REAL_CARRIER_MODULES, REAL_CARRIER_SETTINGS } from '../../carriers/index.js';
import { ConfigError, parseConfig } from '../../config/index.js';
import { carrierRegistryFor } from '../../runtime/carriers.js';
import { simulatorCarrierEnv } from '../../tools/carrier-sim/index.js';

const UPS = {
  CARRIER_UPS_URL: 'https://onlinetools.ups.com',
  CARRIER_UPS_CLIENT_ID: 'ups-client-id',
  CARRIER_UPS_CLIENT_SECRET: 'ups-client-secret-value',
  CARRIER_UPS_ACCOUNT_NUMBER: 'A1B2C3',
};
const USPS = {
  CARRIER_USPS_URL: 'https://apis.usps.com',
  CARRIER_USPS_CLIENT_ID: 'usps-client-id',
  CARRIER_USPS_CLIENT_SECRET: 'usps-client-secret-value',
  CARRIER_USPS_CRID: '56982563',
  CARRIER_USPS_MID: '904128936',
  CARRIER_USPS_MANIFEST_MID: '904128937',
  CARRIER_USPS_ACCOUNT_NUMBER: '1000405525',
};

const carriers = CARRIER_MODULES.map((m) => m.definition.code);
const fresh = () => randomBytes(32).toString('hex');

/** What production requires of the rest, so only the real carriers' settings are under test. */
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

function refusal(env: Record<string, string>): string {
  try {
    parseConfig(env, { carriers, realCarriers: REAL_CARRIER_SETTINGS });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

const enabled = (env: Record<string, string>) => carrierRegistryFor(parseConfig(env, { carriers, realCarriers: REAL_CARRIER_SETTINGS })).definitions.map((d) => d.code);

describe('real carrier settings', () => {
  it('leave UPS and USPS off when none is set, in production too', () => {
    expect(enabled(productionEnv())).toEqual(['acme', 'swiftpost']);
    expect(enabled({})).toEqual(['acme', 'swiftpost']);
  });

  it('turn a carrier on when all of its settings are set, and give its adapter the credentials', () => {
    expect(enabled({ ...productionEnv(), ...UPS })).toEqual(['acme', 'swiftpost', 'ups']);
    expect(enabled({ ...productionEnv(), ...UPS, ...USPS })).toEqual(['acme', 'swiftpost', 'ups', 'usps']);
    const config = parseConfig({ ...UPS, ...USPS }, { realCarriers: REAL_CARRIER_SETTINGS });
    expect(config.carrierCredentials.ups).toEqual({ CLIENT_ID: 'ups-client-id', CLIENT_SECRET: 'ups-client-secret-value', ACCOUNT_NUMBER: 'A1B2C3' });
    expect(carrierRegistryFor(config).adapter('usps', true).definition.code).toBe('usps');
  });

  it('refuse a partial set in production, naming each missing variable', () => {
    const { CARRIER_UPS_CLIENT_SECRET: _secret, CARRIER_UPS_ACCOUNT_NUMBER: _account, ...partial } = UPS;
    const message = refusal({ ...productionEnv(), ...partial });
    expect(message).toContain('CARRIER_UPS_CLIENT_SECRET must be set');
    expect(message).toContain('CARRIER_UPS_ACCOUNT_NUMBER must be set');
    expect(message).not.toContain('CARRIER_UPS_CLIENT_ID must');
    // A URL alone is a partial set too: the carrier would otherwise be silently off.
    expect(refusal({ ...productionEnv(), CARRIER_USPS_URL: USPS.CARRIER_USPS_URL })).toContain('CARRIER_USPS_MANIFEST_MID must be set');
    // Outside production a partial set only leaves the carrier off.
    expect(enabled(partial)).toEqual(['acme', 'swiftpost']);
  });

  it('never shows a secret: not in a refusal, not in the configuration serialized', () => {
    const { CARRIER_UPS_ACCOUNT_NUMBER: _account, ...partial } = UPS;
    expect(refusal({ ...productionEnv(), ...partial })).not.toContain(UPS.CARRIER_UPS_CLIENT_SECRET);
    const serialized = JSON.stringify(parseConfig({ ...UPS, ...USPS }, { realCarriers: REAL_CARRIER_SETTINGS }));
    expect(serialized).not.toContain(UPS.CARRIER_UPS_CLIENT_SECRET);
    expect(serialized).not.toContain(USPS.CARRIER_USPS_CLIENT_SECRET);
    expect(serialized).toContain('"CLIENT_SECRET":"[redacted]"');
  });
});

describe("a real carrier's settings, as its module declares them", () => {
  // A carrier config/ has never heard of, with a code in two words: only its declaration says what to read.
  const courier = {
    code: 'blue_courier',
    settings: [
      { suffix: 'API_KEY', secret: false, required: true, description: 'the key', simulatorValue: 'k' },
      { suffix: 'API_SECRET', secret: true, required: true, description: 'the secret', simulatorValue: 's' },
      { suffix: 'PICKUP_PHONE', secret: false, required: false, description: 'a phone', simulatorValue: 'p' },
    ],
  };
  const env = { CARRIER_BLUE_COURIER_URL: 'https://api.blue.example/v1', CARRIER_BLUE_COURIER_API_KEY: 'key-1', CARRIER_BLUE_COURIER_API_SECRET: 'secret-value-1' };

  it('are read, turn it on together, and keep its secrets out of the serialized configuration', () => {
    const config = parseConfig(env, { realCarriers: [courier] });
    expect(config.carrierCredentials.blue_courier).toEqual({ API_KEY: 'key-1', API_SECRET: 'secret-value-1' });
    expect(config.carrierUrls.blue_courier).toBe('https://api.blue.example/v1');
    expect(JSON.stringify(config.carrierCredentials)).toBe('{"blue_courier":{"API_KEY":"key-1","API_SECRET":"[redacted]"}}');
    // An optional setting alone turns nothing on.
    expect(parseConfig({ CARRIER_BLUE_COURIER_PICKUP_PHONE: '+1 555' }, { realCarriers: [courier] }).carrierCredentials).toEqual({});
  });

  it('refuse a partial set in production, naming what is missing', () => {
    const { CARRIER_BLUE_COURIER_API_SECRET: _secret, ...partial } = env;
    let message = '';
    try {
      parseConfig({ ...productionEnv(), ...partial }, { carriers, realCarriers: [courier] });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('CARRIER_BLUE_COURIER_API_SECRET must be set: BLUE_COURIER is enabled only with all of CARRIER_BLUE_COURIER_URL, CARRIER_BLUE_COURIER_API_KEY, CARRIER_BLUE_COURIER_API_SECRET');
    expect(message).not.toContain('PICKUP_PHONE');
  });

  it('give the simulator environment every setting of every real carrier, from the registry alone', () => {
    const simEnv = simulatorCarrierEnv('http://127.0.0.1:4010/');
    for (const m of REAL_CARRIER_MODULES) {
      expect(simEnv[`CARRIER_${m.definition.code.toUpperCase()}_URL`]).toBe(`http://127.0.0.1:4010${m.simulatorPath}`);
      for (const s of m.settings ?? []) expect(simEnv[`CARRIER_${m.definition.code.toUpperCase()}_${s.suffix}`], s.suffix).toBe(s.simulatorValue);
    }
    // And config/ turns each of them on from it.
    expect(Object.keys(parseConfig(simEnv, { realCarriers: REAL_CARRIER_SETTINGS }).carrierCredentials)).toEqual(REAL_CARRIER_MODULES.map((m) => m.definition.code));
    // An operator's own URL for a carrier leaves that carrier's settings to the operator.
    const [first] = REAL_CARRIER_MODULES;
    const urlOf = `CARRIER_${first.definition.code.toUpperCase()}_URL`;
    expect(Object.keys(simulatorCarrierEnv('http://sim', { [urlOf]: 'https://real.example' })).some((name) => name.startsWith(`CARRIER_${first.definition.code.toUpperCase()}_`))).toBe(false);
  });
});
