import { afterEach, describe, expect, it, vi } from 'vitest';
import { main as sdkFloor } from '../../tools/bench/floor/run.js';
import { main as rateSplit } from '../../tools/bench/rate-split.js';

// The bench's scenarios that start stacks of their own answer --help and a wrong flag before they
// start anything: usage and exit 0 or 2, never a stack trace.
afterEach(() => vi.restoreAllMocks());

describe("the bench's own-stack scenarios' arguments", () => {
  for (const [name, main] of [['rate-split', rateSplit], ['sdk-floor', sdkFloor]] as const) {
    it(`${name}: --help prints the usage; an unknown flag or a bad number is a usage error`, async () => {
      const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      expect(await main(['--help'])).toBe(0);
      expect(String(out.mock.calls[0]?.[0])).toContain(`npm run bench -- ${name}`);
      expect(await main(['--bogus'])).toBe(2);
      expect(String(err.mock.calls.at(-1)?.[0])).toMatch(/Unknown option '--bogus'[\s\S]*usage: npm run bench/);
      const numberFlag = name === 'rate-split' ? '--rps' : '--clients';
      expect(await main([numberFlag, 'zero'])).toBe(2);
    });
  }
});
