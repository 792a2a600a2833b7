import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDhlSimulator, dhlError, type DhlSimOperation, type DhlSimulator, type DhlSimulatorOptions } from './simulator.js';

/** The DHL Express simulator on a port of its own (tests), with its own fault list. */

export type DhlSimFault = { operation: DhlSimOperation | 'any'; times?: number } & (
  | { kind: 'error'; status: number; code?: string; message?: string; retryAfterS?: number }
  /** Never answers; the connection is closed after `holdMs` (default 30 s) or when the client leaves. */
  | { kind: 'timeout'; holdMs?: number }
  | { kind: 'slow'; delayMs: number }
  /** Carries the operation out, then drops the connection before answering. */
  | { kind: 'lose_answer' }
);

function takeFault(faults: DhlSimFault[], operation: DhlSimOperation): DhlSimFault | undefined {
  const index = faults.findIndex((f) => f.operation === operation || f.operation === 'any');
  if (index < 0) return undefined;
  const fault = faults[index];
  const left = (fault.times ?? 1) - 1;
  if (left <= 0) faults.splice(index, 1);
  else faults[index] = { ...fault, times: left };
  return fault;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const problem = status >= 400 ? 'application/problem+json' : 'application/json';
  res.writeHead(status, { 'content-type': problem, ...headers }).end(body === undefined ? '' : JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function serve(sim: DhlSimulator, faults: DhlSimFault[], basePath: string, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://sim');
  if (basePath && !url.pathname.startsWith(`${basePath}/`)) return false;
  const path = url.pathname.slice(basePath.length);
  const operation = sim.operationOf(req.method ?? 'GET', path);
  if (!operation) return false;
  const rawBody = await readBody(req);
  const fault = takeFault(faults, operation);
  if (fault?.kind === 'error') {
    const body = dhlError(fault.status, 'Simulated failure', fault.message ?? `${fault.code ?? '999'}: Simulated failure`, `/expressapi${path}`);
    send(res, fault.status, body, fault.retryAfterS === undefined ? {} : { 'retry-after': String(fault.retryAfterS) });
    return true;
  }
  if (fault?.kind === 'timeout') {
    const timer = setTimeout(() => res.destroy(), fault.holdMs ?? 30_000);
    res.on('close', () => clearTimeout(timer));
    return true;
  }
  if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
  const answer = await sim.respond({ method: req.method ?? 'GET', path, query: url.searchParams, headers: req.headers, rawBody });
  if (!answer) return false;
  if (fault?.kind === 'lose_answer') res.destroy();
  else send(res, answer.status, answer.body);
  return true;
}

/** Serves the simulator on its own port (tests). `url` is the server URL to give the client. */
export async function startDhlSimulator(options: DhlSimulatorOptions & { port?: number; host?: string; basePath?: string } = {}) {
  const sim = createDhlSimulator(options);
  const faults: DhlSimFault[] = [];
  const basePath = (options.basePath ?? '/mydhlapi').replace(/\/+$/, '');
  const server = createServer((req, res) => {
    serve(sim, faults, basePath, req, res).then(
      (handled) => {
        if (!handled) send(res, 404, dhlError(404, 'Not found', 'No such resource', req.url ?? '/'));
      },
      () => {
        if (!res.headersSent) send(res, 500, dhlError(500, 'Internal Server Error', '999: Process failure occurred'));
      },
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    sim,
    faults,
    url: `http://${host}:${port}${basePath}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
