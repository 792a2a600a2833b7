// Ports picked for a process that has not bound them yet are given back to the system, which may hand
// them out again: the chaos fleet picked the dev server's frontend port, and the dev server then picked
// the very same one for its HTTP API and exited with "address already in use". `avoid` rules that out.
import { describe, expect, it } from 'vitest';
import { freePorts } from '../../util/index.js';

describe('freePorts', () => {
  it('never returns a port it was asked to avoid, nor the same port twice', async () => {
    // Five hundred ports just released: without `avoid`, a second pick of five hundred meets some of
    // them again (the system's range for a free port is about 28,000 wide).
    const picked = await freePorts(500);
    const again = await freePorts(500, '127.0.0.1', picked);
    expect(again).toHaveLength(500);
    expect(new Set(again).size).toBe(500);
    expect(again.filter((p) => picked.includes(p))).toEqual([]);
  });
});
