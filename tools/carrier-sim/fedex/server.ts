import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FEDEX_ERROR, createFedexSimulator, type FedexSimFault, type FedexSimOperation, type FedexSimulator, type FedexSimulatorOptions } from './simulator.js';
import { fedexSchemaCheck, warmUpFedexSchemas } from './schema-check.js';

/** The FedEx simulator on a port of its own (tests), with its own fault list. */

function takeFault(faults: FedexSimFault[], operation: FedexSimOperation): FedexSimFault | undefined {
  const index = faults.findIndex((f) => f.operation === operation || f.operation === 'any');
  if (index < 0) return undefined;
  const fault = faults[index]!;
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

/** Answers one request; false when its path is not FedEx's. */
async function serve(sim: FedexSimulator, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://sim');
  const operation = sim.operationOf(req.method ?? 'GET', url.pathname);
  if (!operation) return false;
  const rawBody = await readBody(req);
  const fault = takeFault(sim.faults, operation);
  if (fault?.kind === 'error') {
    const body = FEDEX_ERROR(fault.code ?? 'SIMULATED.ERROR', fault.message ?? 'Simulated failure');
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
  const answer = await sim.respond({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers, rawBody });
  if (!answer) return false;
  if (fault?.kind === 'lose_answer') res.destroy();
  else send(res, answer.status, answer.body);
  return true;
}

/**
 * Serves the simulator on its own port (tests). `url` is the origin to give the client. Every
 * request and answer is checked against the schemas of FedEx's documents unless `validate` says
 * otherwise.
 */
export async function startFedexSimulator(options: FedexSimulatorOptions & { port?: number; host?: string } = {}) {
  if (options.validate === undefined) warmUpFedexSchemas();
  const sim = createFedexSimulator({ validate: fedexSchemaCheck, ...options });
  const server = createServer((req, res) => {
    serve(sim, req, res).then(
      (handled) => {
        if (!handled) send(res, 404, FEDEX_ERROR('NOT.FOUND.ERROR', 'The resource you requested is no longer available.'));
      },
      () => {
        if (!res.headersSent) send(res, 500, FEDEX_ERROR('INTERNAL.SERVER.ERROR', 'We encountered an unexpected error.'));
      },
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    sim,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
