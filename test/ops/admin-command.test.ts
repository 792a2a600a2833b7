import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findKeyByHash, hashApiKey, openDatabase, type Database } from '../../db/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `npm run --silent admin -- <args>` (or ops) as an operator types it (contract: Administration). */
function admin(args: string[], env: Record<string, string> = {}, script = 'admin'): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const options = { cwd: ROOT, timeout: 120_000, env: { ...process.env, DATABASE_URL: inject('databaseUrl'), ...env } };
    execFile('npm', ['run', '--silent', script, '--', ...args], options, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The one JSON object a command prints, on one line of its own. */
function json(run: { code: number; stdout: string; stderr: string }): Record<string, unknown> {
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/^\{.*\}\n$/);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

let database: Database;
beforeAll(() => {
  database = openDatabase(inject('databaseUrl'), { max: 1 });
});
afterAll(async () => {
  await database?.close();
});

describe('npm run --silent admin', () => {
  it('opens an account, enables its API, tops its wallet up, issues and revokes a key: one JSON object each', async () => {
    const account = json(await admin(['account', 'create', '--name', 'Npm Run Ltd', '--funding', 'wallet']));
    expect(account).toEqual({ id: expect.stringMatching(/^acc_[0-9a-z]{26}$/) });
    const id = account.id as string;

    expect(json(await admin(['account', 'enable-api', id]))).toEqual({ id, api_enabled: true });
    expect(json(await admin(['wallet', 'topup', id, '25.00']))).toMatchObject({ object: 'balance', funding_source: 'wallet', currency: 'GBP', available: '25.00' });
    expect(json(await admin(['account', 'set', id, '--low-balance-threshold', '5.00']))).toEqual({ id, low_balance_threshold: '5.00', credit_limit: null });

    const key = json(await admin(['key', 'create', id, '--mode', 'test', '--scopes', 'all', '--rate-limit', '50/10']));
    expect(key).toEqual({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^svc_test_/) });
    // The key printed is the one stored (by its hash), for this account.
    const stored = await findKeyByHash(database.db, hashApiKey(key.key as string));
    expect(stored).toMatchObject({ key: { id: key.id, accountId: id, livemode: false, rateLimitCount: 50, rateLimitSeconds: 10 } });

    expect(json(await admin(['key', 'revoke', key.id as string]))).toEqual({ id: key.id, revoked: true, revoked_at: expect.any(String) });
  });

  it('refuses bad input with a message on stderr, nothing on stdout and exit status 1', async () => {
    const refused = await admin(['account', 'create', '--name', 'Odd money', '--funding', 'wallet', '--currency', 'XYZ']);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('admin: --currency must be an ISO 4217 code');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });

  // The carriers are loaded only in production, to require each one's variables (admin/session.ts).
  it('refuses to start in production with development values, naming each carrier variable', async () => {
    const refused = await admin(['key', 'revoke', 'key_x'], { NODE_ENV: 'production' });
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toMatch(/^admin: configuration error: refusing to start in production:/);
    for (const name of ['SIGNING_SECRET', 'CARRIER_ACME_URL', 'CARRIER_SWIFTPOST_WEBHOOK_SECRET']) expect(refused.stderr).toContain(`- ${name} `);
  });

  it('prints its usage on --help', async () => {
    const help = await admin(['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run --silent admin -- <command>\n/);
  });
});

describe('npm run --silent ops', () => {
  it('stuck --json answers one JSON object from Temporal', async () => {
    const stuck = json(await admin(['stuck', '--json', '--older-than', '1d'], { TEMPORAL_ADDRESS: inject('temporalAddress') }, 'ops'));
    expect(stuck).toEqual({ data: expect.any(Array), pickups: expect.any(Array), scan_forms: expect.any(Array) });
  });
});
