// Watching whether one request stalls the server for everyone: `/healthz` probes sent from a worker
// thread (its own event loop, so a stall of the API's loop, which the test's own code shares, cannot
// hold the probes back too), each on a new connection, with its time from before it is sent until
// its answer has arrived; and a raw HTTP/1.1 client that sends a request exactly as given, body and
// all, and tells what came back and when.
import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';

export interface Probe {
  /** Wall-clock time the probe was sent (ms since the epoch, comparable across threads). */
  sentAt: number;
  ms: number;
  status?: number;
  error?: string;
}

const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
let probes = [];
let timer;
let inFlight = 0;
let lastSentAt = 0;
let stopAfter;
let stopping = false;
function finish() {
  if (stopping && inFlight === 0) parentPort.postMessage({ type: 'probes', probes });
}
function probe() {
  const sentAt = Date.now();
  lastSentAt = sentAt;
  const t0 = process.hrtime.bigint();
  const took = () => Number(process.hrtime.bigint() - t0) / 1e6;
  inFlight++;
  const req = http.get(workerData.url, { agent: false }, (res) => {
    res.resume();
    res.on('end', () => {
      probes.push({ sentAt, ms: took(), status: res.statusCode });
      inFlight--;
      finish();
    });
  });
  req.on('error', (e) => {
    probes.push({ sentAt, ms: took(), error: e.code || e.message });
    inFlight--;
    finish();
  });
}
function maybeStop() {
  if (stopAfter === undefined || stopping || lastSentAt <= stopAfter) return;
  clearInterval(timer);
  stopping = true;
  finish();
}
parentPort.on('message', (m) => {
  if (m.type === 'start') {
    probes = [];
    stopAfter = undefined;
    stopping = false;
    probe();
    parentPort.postMessage({ type: 'started', at: lastSentAt });
    timer = setInterval(() => {
      probe();
      maybeStop();
    }, workerData.everyMs);
  } else if (m.type === 'stop') {
    stopAfter = m.after;
    maybeStop();
  }
});
`;

/**
 * A prober of `url` every `everyMs`. `start()` resolves once the first probe is on its way;
 * `stop(after)` lets probing go on until a probe has been sent after the time `after`, and gives
 * every probe since `start()` once each has its answer.
 */
export function startProber(url: string, everyMs: number) {
  const worker = new Worker(PROBER, { eval: true, workerData: { url, everyMs } });
  const next = (type: string) =>
    new Promise<{ probes?: Probe[]; at?: number }>((resolve) => {
      const on = (m: { type: string; probes?: Probe[]; at?: number }) => {
        if (m.type !== type) return;
        worker.off('message', on);
        resolve(m);
      };
      worker.on('message', on);
    });
  return {
    async start(): Promise<number> {
      const started = next('started');
      worker.postMessage({ type: 'start' });
      return (await started).at!;
    },
    async stop(after = Date.now()): Promise<Probe[]> {
      const done = next('probes');
      worker.postMessage({ type: 'stop', after });
      return (await done).probes!;
    },
    close: () => worker.terminate(),
  };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** The client's port, by which the server's side of the connection can be found. */
  localPort: number;
  sentAt: number;
  answeredAt: number;
}

/**
 * Sends `head` (the request line and headers, without the blank line) and then `body` on a new
 * connection, and resolves with the answer's status and headers once the whole answer is in (its
 * Content-Length read, or the connection closed). Writing the body may fail once the server has
 * answered and closed; that is the server's right, and is not an error here.
 */
export function rawRequest(url: string, head: string, body: Buffer): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let done = false;
    const sentAt = Date.now();
    const settle = () => {
      if (done) return;
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (received.length - (end + 4) < length && !socket.readableEnded) return;
      done = true;
      const answer = { status: Number(statusLine.split(' ')[1]), headers, localPort: socket.localPort ?? 0, sentAt, answeredAt: Date.now() };
      socket.destroy();
      resolve(answer);
    };
    socket.on('connect', () => {
      socket.write(`${head}\r\n\r\n`);
      socket.write(body, () => undefined);
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      settle();
    });
    socket.on('end', settle);
    socket.on('error', (err) => {
      // A reset after the answer arrived (the server stopped reading the body) leaves the answer whole.
      settle();
      if (!done) {
        done = true;
        reject(err);
      }
    });
    socket.on('close', () => {
      settle();
      if (!done) {
        done = true;
        reject(new Error(`connection closed before an answer: ${received.toString('latin1').slice(0, 200)}`));
      }
    });
  });
}
