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
  /** The status of the follow-up request sent on the same connection, when one was asked for. */
  followUpStatus?: number;
}

interface Parsed {
  status: number;
  headers: Record<string, string>;
  /** Bytes of the answer, head and body. */
  length: number;
}

/** One whole answer at the start of `received`, if it is all there (or the connection has ended). */
function parseAnswer(received: Buffer, ended: boolean): Parsed | undefined {
  const end = received.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = end + 4 + Number(headers['content-length'] ?? 0);
  if (received.length < length && !ended) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, length };
}

/**
 * Sends `head` (the request line and headers, without the blank line) and then `body` on a new
 * connection, and resolves with the answer's status and headers once the whole answer is in (its
 * Content-Length read, or the connection closed). Writing the body may fail once the server has
 * answered and closed; that is the server's right, and is not an error here. With `followUp` (the
 * head of a request without a body), that request is sent on the same connection once the body
 * has been written and the first answer has come, and its status is part of the answer: whether
 * the connection could carry the next request.
 */
export function rawRequest(url: string, head: string, body: Buffer, followUp?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let first: (Parsed & { answeredAt: number }) | undefined;
    let bodyWritten = false;
    let followUpSent = false;
    let done = false;
    let localPort = 0;
    const sentAt = Date.now();
    const finish = (followUpStatus?: number) => {
      done = true;
      socket.destroy();
      resolve({ status: first!.status, headers: first!.headers, localPort, sentAt, answeredAt: first!.answeredAt, followUpStatus });
    };
    const settle = () => {
      if (done) return;
      const ended = socket.readableEnded || socket.destroyed;
      if (!first) {
        const parsed = parseAnswer(received, ended);
        if (!parsed) return;
        first = { ...parsed, answeredAt: Date.now() };
        received = received.subarray(parsed.length);
        if (!followUp) return finish();
      }
      if (!followUpSent) {
        if (!bodyWritten || ended) return ended ? finish() : undefined;
        followUpSent = true;
        socket.write(`${followUp}\r\n\r\n`);
        return;
      }
      const next = parseAnswer(received, ended);
      if (next) finish(next.status);
      else if (ended) finish();
    };
    socket.on('connect', () => {
      localPort = socket.localPort ?? 0;
      socket.write(`${head}\r\n\r\n`);
      socket.write(body, (err) => {
        bodyWritten = !err;
        settle();
      });
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      settle();
    });
    socket.on('end', settle);
    socket.on('error', (err) => {
      // A reset after the answer arrived (the server stopped reading the body) leaves the answer whole.
      settle();
      if (!done && !first) {
        done = true;
        reject(err);
      } else if (!done) finish();
    });
    socket.on('close', () => {
      settle();
      if (!done && !first) {
        done = true;
        reject(new Error(`connection closed before an answer: ${received.toString('latin1').slice(0, 200)}`));
      } else if (!done) finish();
    });
  });
}
