import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './http-io.js';
import { USPS_PREFIXES, createUspsSimulator, uspsErrorBody, uspsOperationOf } from './simulator.js';
import type { UspsReply, UspsSimFault, UspsSimOperation, UspsSimulatorOptions } from './desk.js';

/** The USPS simulator on a port of its own (tests), with faults queued per operation. */

function send(res: ServerResponse, reply: UspsReply): void {
  const text = reply.raw ?? JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(text);
}

/** Starts the simulator on its own HTTP server (tests); `url` is the origin the client takes. */
export async function startUspsSimulator(options: UspsSimulatorOptions & { port?: number; host?: string }) {
  const core = createUspsSimulator(options);
  const faults = new Map<UspsSimOperation, UspsSimFault[]>();
  const simulator = {
    ...core,
    /** Queues a fault for the next call of `operation`. */
    inject(operation: UspsSimOperation, fault: UspsSimFault) {
      faults.set(operation, [...(faults.get(operation) ?? []), fault]);
    },
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://usps.invalid');
      const rawBody = await readBody(req);
      if (!USPS_PREFIXES.some((p) => url.pathname.startsWith(p))) {
        return send(res, { status: 404, body: { error: { code: '404', message: 'Resource Not Found' } } });
      }
      const operation = uspsOperationOf(req.method ?? 'GET', url.pathname);
      if (!operation) return send(res, { status: 404, body: uspsErrorBody(404, 'Resource Not Found') });
      const refused = core.admit(operation);
      if (refused) return send(res, refused);
      const fault = faults.get(operation)?.shift();
      if (fault?.kind === 'timeout') return; // never answered: the client's deadline fires
      if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.ms));
      if (fault?.kind === 'error') {
        const body = fault.body ?? uspsErrorBody(fault.status, `Simulated ${fault.status}`);
        core.checkAnswer(operation, { method: req.method ?? 'GET', path: url.pathname }, { status: fault.status, body });
        return send(res, { status: fault.status, body, headers: fault.headers });
      }
      const reply = await core.serve(operation, { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, rawBody });
      // A lost answer: the operation is carried out, then the connection drops before the answer.
      if (fault?.kind === 'lost') res.socket?.destroy();
      else send(res, reply);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    simulator,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
