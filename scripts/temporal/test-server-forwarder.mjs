#!/usr/bin/env node
// The "time-skipping test server" the Temporal TypeScript SDK starts: it runs `<this> <port>` and
// gives up unless 127.0.0.1:<port> answers within about 5 s, which a JVM on a busy 2-core machine
// may not manage. So this forwarder listens on <port> at once and pipes every connection to a Java
// test server (io.temporal.testserver.TestServer) of its own:
//   - PARCEL_TEMPORAL_TEST_SERVER_POOL=<unix socket>: lease an already running one from the pool that
//     scripts/temporal/test-server.ts keeps for the whole test run; the pool kills that server when
//     this process ends (the lease is this process's connection to the pool).
//   - otherwise: start one (PARCEL_TEMPORAL_JAVA_TEST_SERVER, the launcher script) and wait for it.
// Connections made before the backend is up are held, not refused, so the SDK's first call simply
// waits for the JVM. Plain JavaScript so that it starts fast with no loader. Copied into the cache
// by ensureTestServer(); edit scripts/temporal/test-server-forwarder.mjs, not the copy.
import { spawn } from 'node:child_process';
import net from 'node:net';

const [portArg, ...extraArgs] = process.argv.slice(2);
const port = Number(portArg);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write('usage: temporal-test-server <port> [test server flags]\n');
  process.exit(2);
}

const poolSocket = process.env.PARCEL_TEMPORAL_TEST_SERVER_POOL;
const launcher = process.env.PARCEL_TEMPORAL_JAVA_TEST_SERVER;
const startedParent = process.ppid;
/** @type {import('node:child_process').ChildProcess | undefined} */
let ownServer;
/** @type {net.Socket | undefined} */
let lease;
let exiting = false;

function say(msg) {
  process.stderr.write(`[temporal-test-server ${port}] ${msg}\n`);
}

function shutdown(code) {
  if (exiting) return;
  exiting = true;
  if (ownServer && ownServer.exitCode === null && ownServer.signalCode === null) ownServer.kill('SIGKILL');
  lease?.destroy();
  process.exit(code);
}

for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => shutdown(0));
// The SDK kills us with SIGKILL; should our parent die without doing so, go with it.
setInterval(() => {
  if (process.ppid !== startedParent) shutdown(0);
}, 1_000).unref();

/** Resolves to the port of a test server reserved for us from the pool. */
function leaseFromPool(socketPath) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    lease = socket;
    let buffered = '';
    let answered = false;
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ lease: true, pid: process.pid, port })}\n`));
    socket.on('data', (chunk) => {
      buffered += chunk;
      const nl = buffered.indexOf('\n');
      if (answered || nl < 0) return;
      answered = true;
      let reply;
      try {
        reply = JSON.parse(buffered.slice(0, nl));
      } catch {
        reject(new Error(`bad answer from the pool: ${buffered.slice(0, nl)}`));
        return;
      }
      if (typeof reply.port === 'number') resolve(reply.port);
      else reject(new Error(`the pool refused: ${reply.error ?? buffered.slice(0, nl)}`));
    });
    socket.on('error', (e) => {
      if (!answered) reject(new Error(`cannot reach the test server pool at ${socketPath}: ${e.message}`));
    });
    socket.on('close', () => {
      if (!answered) reject(new Error('the test server pool closed the lease before answering'));
      // Pool gone (end of the test run) or our server died: nothing left to forward to.
      else if (!exiting) {
        say('the test server pool ended this lease; exiting');
        shutdown(1);
      }
    });
  });
}

function tcpConnects(p) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port: p });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const { port: p } = /** @type {net.AddressInfo} */ (srv.address());
      srv.close(() => resolve(p));
    });
  });
}

/** Starts a Java test server of our own and resolves to its port once it accepts connections. */
async function startOwn(launcherPath) {
  const backendPort = await freePort();
  ownServer = spawn(launcherPath, [String(backendPort), ...extraArgs], { stdio: ['ignore', 'inherit', 'inherit'] });
  const child = ownServer;
  let exited = false;
  child.once('exit', (code, signal) => {
    exited = true;
    if (!exiting) {
      say(`the Java test server exited (${code ?? signal}); exiting`);
      shutdown(1);
    }
  });
  child.once('error', (e) => {
    say(`cannot start ${launcherPath}: ${e.message}`);
    shutdown(1);
  });
  const deadline = Date.now() + 120_000;
  while (!exited && Date.now() < deadline) {
    if (await tcpConnects(backendPort)) return backendPort;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the Java test server did not listen on ${backendPort} within 120 s`);
}

let backend;
if (poolSocket) {
  if (extraArgs.length > 0) say(`ignoring extra arguments ${extraArgs.join(' ')} (pooled servers are started without them)`);
  backend = leaseFromPool(poolSocket);
} else if (launcher) {
  backend = startOwn(launcher);
} else {
  say('neither PARCEL_TEMPORAL_TEST_SERVER_POOL nor PARCEL_TEMPORAL_JAVA_TEST_SERVER is set');
  process.exit(2);
}
backend.catch((e) => {
  say(e.message);
  shutdown(1);
});

const server = net.createServer({ pauseOnConnect: true }, (client) => {
  client.on('error', () => client.destroy());
  backend.then(
    (backendPort) => {
      const upstream = net.connect({ host: '127.0.0.1', port: backendPort });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      upstream.once('connect', () => {
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    },
    () => client.destroy(),
  );
});
server.on('error', (e) => {
  say(`cannot listen on 127.0.0.1:${port}: ${e.message}`);
  shutdown(1);
});
server.listen({ host: '127.0.0.1', port });
