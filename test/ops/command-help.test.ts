import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs one of our command lines as `npm run <name> -- …` does, without npm. */
function run(script: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const options = { cwd: ROOT, timeout: 60_000, env: { ...process.env, ...env } };
    execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, script), ...args], options, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

// An operator typing `--help` gets the usage and nothing started (no database, no Temporal, no
// fleet); a mistyped option gets the usage on stderr and exit status 2, not a stack trace.
describe.each([
  ['admin', 'admin/main.ts', 'account create'],
  ['ops', 'admin/ops-main.ts', 'stuck'],
  ['chaos', 'tools/chaos.ts', '--purchases'],
  ['fleet', 'tools/fleet.ts', 'npm run fleet'],
  ['worker', 'workers/main.ts', 'carrier-acme'],
])('npm run %s', (_name, script, mentions) => {
  it('--help prints the usage on stdout and exits 0', async () => {
    const { code, stdout, stderr } = await run(script, ['--help']);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^usage: /);
    expect(stdout).toContain(mentions);
  });

  it('an unknown option prints the usage on stderr and exits 2', async () => {
    const { code, stdout, stderr } = await run(script, ['--no-such-option']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('usage: ');
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('npm run admin', () => {
  it('refuses an argument a command does not take, before it opens any database', async () => {
    const { code, stdout, stderr } = await run('admin/main.ts', ['key', 'revoke', 'key_a', 'key_b']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('unexpected argument "key_b" to "key revoke"');
  });

  it('refuses an unknown command before it opens any database', async () => {
    const { code, stderr } = await run('admin/main.ts', ['wallet', 'drain', 'acc_x']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "wallet drain"');
  });
});

describe('npm run worker', () => {
  it('refuses a queue group it does not know, naming it, before it connects to anything', async () => {
    const { code, stderr } = await run('workers/main.ts', ['shipments', 'bogusqueue']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown queue group "bogusqueue"');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

// During an outage, the moment `ops stuck` is for: it said nothing and waited for ever (it retried the
// connection in silence, as a service waiting for its dependencies does). Now it says what is down.
describe('npm run ops, with a dependency down', () => {
  it('stuck: Temporal unreachable is said on stderr, exit status 1', async () => {
    const { code, stdout, stderr } = await run('admin/ops-main.ts', ['stuck'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(code, stderr).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^ops: Temporal at 127\.0\.0\.1:1 is not reachable: /);
  });

  it('reconcile: PostgreSQL unreachable is said on stderr, exit status 1', async () => {
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: 'postgres://ops:ops@127.0.0.1:1/ops' };
    const { code, stdout, stderr } = await run('admin/ops-main.ts', ['reconcile'], env);
    expect(code, stderr).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^ops: PostgreSQL is not reachable: /);
  });
});
