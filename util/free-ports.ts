import net from 'node:net';

/**
 * Free TCP ports on `host` (default 127.0.0.1), found by binding port 0 and closing again; several
 * asked for at once are distinct, and none is in `avoid` (ports picked earlier for something that
 * has not bound them yet: the system may hand a port it just gave back out again). The one helper
 * for this: the embedded PostgreSQL, the workers' runtime metrics, the tooling and the tests all
 * use it.
 */
export async function freePorts(count: number, host = '127.0.0.1', avoid: readonly number[] = []): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    while (ports.length < count) {
      const server = net.createServer();
      server.unref();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port: 0, exclusive: true }, () => resolve());
      });
      // An avoided port stays bound until the end, so the next pick is another one.
      const port = (server.address() as net.AddressInfo).port;
      if (!avoid.includes(port)) ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** One free TCP port on `host` (default 127.0.0.1). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return (await freePorts(1, host))[0];
}
