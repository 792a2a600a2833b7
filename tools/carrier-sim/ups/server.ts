import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UPS_ERROR, createUpsSimulator, type UpsSimFault, type UpsSimOperation, type UpsSimulator, type UpsSimulatorOptions } from './simulator.js';

/** The UPS simulator on a port of its own (tests), with its own fault list. */

function takeFault(faults: UpsSimFault[], operation: UpsSimOperation): UpsSimFault | undefined {
  const index = faults.findIndex((f) => f.operation === operation || f.operation === 'any');
  if (index < 0) return undefined;
  const fault = faults[index];
  const left = (fault.times ?? 1) - 1;
  if (left <= 0) faults.splice(index, 1);
  else faults[index] = { ...fault, times: left };
  return fault;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Answers one request; false when its path is not UPS's. */
async function serve(sim: UpsSimulator, basePath: string, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://sim');
  if (basePath && !url.pathname.startsWith(`${basePath}/`)) return false;
  const path = url.pathname.slice(basePath.length);
  const operation = sim.operationOf(req.method ?? 'GET', path);
  if (!operation) return false;
  const rawBody = await readBody(req);
  const fault = takeFault(sim.faults, operation);
  if (fault?.kind === 'error') {
    // UPS's 429 carries no Retry-After; no fault adds one.
    const body = UPS_ERROR(fault.code ?? String(fault.status), fault.message ?? 'Simulated failure');
    sim.record(operation, fault.status, body);
    send(res, fault.status, body);
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

/** Serves the simulator on its own port (tests). `url` is the origin to give the client. */
export async function startUpsSimulator(options: UpsSimulatorOptions & { port?: number; host?: string; basePath?: string } = {}) {
  const sim = createUpsSimulator(options);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const server = createServer((req, res) => {
    serve(sim, basePath, req, res).then(
      (handled) => {
        if (!handled) send(res, 404, UPS_ERROR('404', 'Not found'));
      },
      () => {
        if (!res.headersSent) send(res, 500, UPS_ERROR('500', 'Internal error'));
      },
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    sim,
    url: `http://${host}:${port}${basePath}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
