import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCardpayApi } from './cardpay-api.js';
import { createControlApi } from './control-api.js';
import { createFaultStore, type Fault, type FaultStore } from './faults.js';
import { BodyTooLargeError, readBody, sendGarbage, sendJson } from './http-io.js';
import { SimHttpError, type SimApi, type SimReply, type SimRequest, type SimRoute } from './sim-types.js';
import { createSimState, type SimState } from './state.js';
import { ALL_CARRIER_MODULES, defaultCarrierBaseUrls, REAL_CARRIER_MODULES, type CarrierModule } from '../../carriers/index.js';

/** What each carrier's simulator folder exports from its `mount.ts`: its API, answering under `mount`. */
type MountSimulator = (state: SimState, mount: string) => SimApi;

/** A carrier's simulator folder: `tools/carrier-sim/<code>/`, a code's underscores as hyphens (`blue_courier` → `blue-courier/`). */
export const simulatorFolder = (code: string) => code.replace(/_/g, '-');

/**
 * Where a carrier's `mount.ts` is, beside this file: `.ts` under a TypeScript loader (tsx, vitest),
 * `.js` once compiled into dist/ (docker compose's dev profile).
 */
function mountUrl(code: string): string {
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${simulatorFolder(code)}/mount${extension}`, import.meta.url).href;
}

/**
 * The remote APIs the simulator plays: every registered carrier with a `simulatorPath`, from its
 * folder's `mount.ts`, at that path (a real carrier's as if it were its origin), and the card
 * processor. The registry's line is all a new carrier adds: nothing here lists carriers.
 */
async function simulatedApis(state: SimState): Promise<SimApi[]> {
  const simulated = ALL_CARRIER_MODULES.filter((m): m is CarrierModule & { simulatorPath: string } => m.simulatorPath !== undefined);
  const carriers = await Promise.all(
    simulated.map(async (m) => {
      const { mountSimulator } = (await import(mountUrl(m.definition.code))) as { mountSimulator: MountSimulator };
      return mountSimulator(state, m.simulatorPath);
    }),
  );
  return [...carriers, createCardpayApi(state)];
}

/** A held (`timeout`) request is let go after this long, so nothing waits for ever. */
const HOLD_MS = 60_000;

export interface CarrierSimulatorOptions {
  /** 0 or absent: any free port. */
  port?: number;
  host?: string;
}

export interface CarrierSimulator {
  url: string;
  port: number;
  /** The origins to give the real carriers' clients (`CARRIER_<CODE>_URL`), by carrier code: each module's `simulatorPath` here. */
  carrierUrls: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts the carrier simulator: every simulated carrier's API (the real ones' under their
 * `simulatorPath`, as if it were their origin), the card processor and the `/_sim` control API,
 * all state in memory. Plain node:http, so a fault can drop a connection mid-request.
 */
export async function startCarrierSimulator(options: CarrierSimulatorOptions = {}): Promise<CarrierSimulator> {
  const state = createSimState();
  const remoteApis = await simulatedApis(state);
  for (const api of remoteApis) if (api.isCarrier) state.buyTimestamps.set(api.code, []);
  const faults = createFaultStore(remoteApis);
  const apis = [createControlApi(state, faults, remoteApis), ...remoteApis];
  const pending = new Set<NodeJS.Timeout>();
  const held = new Set<IncomingMessage>();

  const server = createServer((req, res) => {
    handle(req, res, { apis, state, faults, pending, held }).catch((error: unknown) => {
      // The simulator must outlive any request: answer 500 if we still can, never crash.
      sendJson(res, { status: 500, body: { error: { code: 'simulator_error', message: String(error) } } });
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  const url = `http://${urlHost}:${port}`;
  return {
    url,
    port,
    carrierUrls: defaultCarrierBaseUrls(url, REAL_CARRIER_MODULES),
    async close() {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      for (const req of held) req.socket.destroy();
      held.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Context {
  apis: SimApi[];
  state: SimState;
  faults: FaultStore;
  pending: Set<NodeJS.Timeout>;
  held: Set<IncomingMessage>;
}

async function handle(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<void> {
  let rawBody: string;
  try {
    rawBody = await readBody(req);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      sendJson(res, { status: 413, body: { error: { code: 'payload_too_large', message: error.message } }, headers: { connection: 'close' } });
    } else {
      req.socket.destroy();
    }
    return;
  }
  const target = req.url ?? '/';
  const url = new URL(target, 'http://simulator');
  const found = findRoute(ctx.apis, req.method ?? 'GET', url.pathname);
  if ('status' in found) return sendJson(res, found);
  const { api, route } = found;
  let params: string[];
  try {
    params = found.params.map((p) => decodeURIComponent(p));
  } catch {
    return sendJson(res, { status: 400, body: api.errorBody('invalid_request', 'The path is not validly encoded.', 400) });
  }
  const simReq: SimRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, params, headers: req.headers, rawBody };
  const run = () => runHandler(api, route, simReq);

  if (!route.operation) return sendJson(res, await run());
  if (route.operation === 'buy') ctx.state.buyTimestamps.get(api.code)?.push(Date.now());
  const call = `${api.code} ${route.operation}`;
  ctx.state.calls.set(call, (ctx.state.calls.get(call) ?? 0) + 1);
  const fault = ctx.faults.take(api.code, route.operation, [target, rawBody, ...(api.faultTexts?.(simReq) ?? [])]);
  if (!fault) return sendJson(res, await run());
  await applyFault(fault, api, req, res, run, ctx);
}

async function applyFault(fault: Fault, api: SimApi, req: IncomingMessage, res: ServerResponse, run: () => Promise<SimReply>, ctx: Context): Promise<void> {
  switch (fault.mode) {
    case 'error':
      return sendJson(res, { status: fault.status, body: api.errorBody(fault.code, `Simulated ${fault.status} failure of ${fault.operation}.`, fault.status) });
    case 'rate_limit':
      return sendJson(res, {
        status: 429,
        body: api.errorBody('rate_limited', 'Too many requests.', 429),
        headers: api.sendsRetryAfter === false ? {} : { 'retry-after': String(fault.retry_after) },
      });
    case 'decline':
      return sendJson(res, { status: 402, body: api.errorBody('card_declined', 'The card was declined.', 402) });
    case 'garbage':
      // Nothing is carried out: the answer is all the client gets, and it cannot read it.
      return sendGarbage(res);
    case 'lost_answer':
      // The carrier did the work; the answer never reaches the client.
      await run();
      req.socket.destroy();
      return;
    case 'timeout': {
      ctx.held.add(req);
      const timer = setTimeout(() => req.socket.destroy(), HOLD_MS);
      ctx.pending.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        ctx.pending.delete(timer);
        ctx.held.delete(req);
      });
      return;
    }
    case 'late_commit': {
      // Runs even when the client has gone: the carrier committed after the client gave up.
      const timer = setTimeout(() => {
        ctx.pending.delete(timer);
        void run().then((reply) => {
          if (!res.destroyed && !res.writableEnded) sendJson(res, reply);
        });
      }, fault.delay_ms);
      ctx.pending.add(timer);
      return;
    }
    case 'slow': {
      const reply = await run();
      const timer = setTimeout(() => {
        ctx.pending.delete(timer);
        sendJson(res, reply);
      }, fault.delay_ms);
      ctx.pending.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        ctx.pending.delete(timer);
      });
      return;
    }
  }
}

async function runHandler(api: SimApi, route: SimRoute, req: SimRequest): Promise<SimReply> {
  try {
    return await route.handle(req);
  } catch (error) {
    if (error instanceof SimHttpError) return { status: error.status, body: api.errorBody(error.code, error.message, error.status) };
    return { status: 500, body: api.errorBody('internal_error', error instanceof Error ? error.message : String(error), 500) };
  }
}

function findRoute(
  apis: readonly SimApi[],
  method: string,
  path: string,
): { api: SimApi; route: SimRoute; params: string[] } | SimReply {
  let pathKnown = false;
  for (const api of apis) {
    for (const route of api.routes) {
      const match = route.pattern.exec(path);
      if (!match) continue;
      if (route.method === method) return { api, route, params: match.slice(1) };
      pathKnown = true;
    }
  }
  return pathKnown
    ? { status: 405, body: { error: { code: 'method_not_allowed', message: `${method} is not allowed on ${path}.` } } }
    : { status: 404, body: { error: { code: 'not_found', message: `No route for ${method} ${path}.` } } };
}
