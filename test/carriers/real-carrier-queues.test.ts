// UPS and USPS purchases, voids and tracking polls run on their own rate-limited queues, as the
// simulated carriers' do: a worker process serves `carrier-ups` and `carrier-usps` where the carrier
// is enabled, and the fleet lays out one worker for each.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { simulatorCarrierEnv } from '../../tools/carrier-sim/index.js';
import { workerLayout } from '../../tools/fleet/workers.js';

const run = promisify(execFile);
const worker = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ['--import', 'tsx', 'workers/main.ts', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 90_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

describe('worker queues of the real carriers', () => {
  it('the fleet has a carrier-ups and a carrier-usps worker when their settings are given, and none without', () => {
    const enabled = workerLayout(simulatorCarrierEnv('http://127.0.0.1:4010'));
    expect(enabled).toEqual(
      expect.arrayContaining([
        { name: 'worker-carrier-ups', groups: ['carrier-ups'] },
        { name: 'worker-carrier-usps', groups: ['carrier-usps'] },
        { name: 'worker-carrier-acme', groups: ['carrier-acme'] },
      ]),
    );
    const names = workerLayout({}).map((w) => w.name);
    expect(names).toContain('worker-carrier-acme');
    expect(names).not.toContain('worker-carrier-ups');
    expect(names).not.toContain('worker-carrier-usps');
  });

  it('a worker process takes carrier-ups and carrier-usps as groups, and refuses one whose carrier is not enabled', async () => {
    const help = await worker(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('carrier-ups');
    expect(help.stdout).toContain('carrier-usps');
    const refused = await worker(['carrier-usps'], { LOG_LEVEL: 'error' });
    expect(refused.code).toBe(2);
    expect(refused.stdout + refused.stderr).toContain('carrier not enabled');
    // Two cold starts of a worker process (tsx compiling every carrier) on a busy two-core machine.
  }, 200_000);
});
