import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { CODE } from '../../domain/index.js';
import type { Random } from './random.js';

export interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** Every answer a client saw, for the 5xx check. */
export interface Seen {
  /** When the answer came, and when its request was sent (ms since the run started). */
  atMs: number;
  sentAtMs: number;
  status: number;
  code: string | null;
  what: string;
}

export interface KeyOutcome {
  key: string;
  kind: 'purchase' | 'void';
  /** purchased / voided; failed with a problem answer; refused (void); unfinished when the client gave up. */
  outcome: 'purchased' | 'failed' | 'voided' | 'refused' | 'unfinished';
  shipmentIds: Set<string>;
  lastStatus: number | null;
  problemCode: string | null;
  /** When the client first sent it and when it read its final state (ms since the run started; a purchase's). */
  startedAt?: number;
  endedAt?: number;
}

const agent = new Agent({ keepAliveTimeout: 2_000, connect: { timeout: 3_000 } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** HTTP clients that behave as the contract asks a careful integrator to. */
export function createClients(opts: { apiUrls: string[]; started: number; random: Random; giveUpMs: number }) {
  const seen: Seen[] = [];
  let next = 0;

  async function send(method: 'GET' | 'POST', path: string, key: string, body?: unknown, idempotencyKey?: string): Promise<Answer> {
    // Round robin over the API processes, as a balancer would; a dead one answers nothing.
    const base = opts.apiUrls[next++ % opts.apiUrls.length];
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const sentAtMs = Date.now() - opts.started;
    const res = await request(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: agent,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await res.body.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    const answer = { status: res.statusCode, body: parsed, headers: res.headers };
    if (answer.status >= 500) seen.push({ atMs: Date.now() - opts.started, sentAtMs, status: answer.status, code: parsed?.code ?? null, what: `${method} ${path}` });
    return answer;
  }

  const retryAfter = (a: Answer, fallback: number) => {
    const v = Number(a.headers['retry-after']);
    return Number.isFinite(v) && v > 0 ? Math.min(v * 1000, 10_000) : fallback;
  };

  /**
   * One request retried as a careful client does: the same key after a network error, a 5xx or a
   * 409 `idempotency_key_in_use`; anything else is the answer. `businessRetries` bounds how often a
   * final failure (a 502/503 carrier problem, which frees the key) is tried again under the same key.
   */
  async function careful(method: 'GET' | 'POST', path: string, key: string, body?: unknown, idempotencyKey?: string): Promise<Answer | null> {
    const until = Date.now() + opts.giveUpMs;
    let backoff = 250;
    let businessRetries = 2;
    while (Date.now() < until) {
      let answer: Answer;
      try {
        answer = await send(method, path, key, body, idempotencyKey);
      } catch {
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 4_000);
        continue;
      }
      const code = answer.body?.code;
      const carrierProblem = code === CODE.carrier_unavailable || code === CODE.carrier_error;
      if ((answer.status === 409 && code === CODE.idempotency_key_in_use) || answer.status === 429) {
        await sleep(retryAfter(answer, 1_000));
        continue;
      }
      if (answer.status >= 500 && !(carrierProblem && businessRetries-- <= 0)) {
        await sleep(retryAfter(answer, backoff));
        backoff = Math.min(backoff * 2, 4_000);
        continue;
      }
      return answer;
    }
    return null;
  }

  /** Polls a shipment until `done` says its status is final. */
  async function pollShipment(key: string, id: string, done: (status: string) => boolean): Promise<any | null> {
    const until = Date.now() + opts.giveUpMs;
    while (Date.now() < until) {
      const a = await careful('GET', `/api/v1/shipments/${id}`, key);
      if (a?.status === 200 && done(a.body.status)) return a.body;
      // A quarter of a second: the latency table reads the end of a purchase to within it.
      await sleep(250);
    }
    return null;
  }

  /** A purchase, or (`path`) a return label bought from a shipment, which answers as a purchase does. */
  async function purchase(key: string, idempotencyKey: string, body: unknown, path = '/api/v1/shipments'): Promise<KeyOutcome & { shipment: any | null }> {
    const out: KeyOutcome & { shipment: any | null } = {
      key: idempotencyKey, kind: 'purchase', outcome: 'unfinished', shipmentIds: new Set(), lastStatus: null, problemCode: null, shipment: null,
      startedAt: Date.now() - opts.started,
    };
    try {
      await follow(out, await careful('POST', path, key, body, idempotencyKey), key);
    } finally {
      out.endedAt = Date.now() - opts.started;
    }
    return out;
  }

  /** The purchase's answer, followed to its final state as the contract says (a 202: GET until it is not pending). */
  async function follow(out: KeyOutcome & { shipment: any | null }, a: Answer | null, key: string): Promise<void> {
    if (!a) return;
    out.lastStatus = a.status;
    const id = a.body?.id ?? a.body?.shipment_id;
    if (typeof id === 'string') out.shipmentIds.add(id);
    if (a.status === 201) {
      out.outcome = 'purchased';
      out.shipment = a.body;
    } else if (a.status === 202) {
      const final = await pollShipment(key, a.body.id, (s) => s !== 'pending');
      if (final) {
        out.shipment = final;
        out.outcome = final.status === 'failed' ? 'failed' : 'purchased';
        if (final.status === 'failed') out.problemCode = final.failure?.code ?? null;
      }
    } else if (a.status >= 400 && typeof a.body?.code === 'string' && typeof a.body?.type === 'string') {
      out.outcome = 'failed';
      out.problemCode = a.body.code;
    }
  }

  async function voidLabel(key: string, idempotencyKey: string, shipmentId: string): Promise<KeyOutcome> {
    const out: KeyOutcome = { key: idempotencyKey, kind: 'void', outcome: 'unfinished', shipmentIds: new Set([shipmentId]), lastStatus: null, problemCode: null };
    const path = `/api/v1/shipments/${shipmentId}/void`;
    let a = await careful('POST', path, key, {}, idempotencyKey);
    // A 202 is followed as the API guide says: the same void again under the same key joins the one
    // under way and answers its outcome once it has one. (A read of the shipment is not the outcome:
    // after a worker's death it can still say `purchased` while the accepted void waits to run.)
    const until = Date.now() + opts.giveUpMs;
    while (a?.status === 202 && Date.now() < until) {
      await sleep(500);
      a = await careful('POST', path, key, {}, idempotencyKey);
    }
    if (!a) return out;
    out.lastStatus = a.status;
    if (a.status === 200) out.outcome = 'voided';
    else if (a.status >= 400 && typeof a.body?.code === 'string') {
      out.outcome = 'refused';
      out.problemCode = a.body.code;
    }
    return out;
  }

  return { send, careful, purchase, voidLabel, seen };
}

/** Webhook deliveries the receiver acknowledged or refused, by event id. */
export interface Receiver {
  url: string;
  acked: Map<string, number>;
  refused: number;
  /** Deliveries answered 500, by event id. */
  refusals: Map<string, number>;
  /** Deliveries whose header id differed from the body's, or whose body changed between attempts. */
  unstable: string[];
  /**
   * While true, about a quarter of deliveries are answered 500, never more than twice in a row for
   * one event, so that the third attempt (about 70 s after the first) gets through and a run need not
   * wait for the 5 min and 30 min retries.
   */
  flaky: boolean;
  close(): Promise<void>;
}

export async function startReceiver(random: Random): Promise<Receiver> {
  const bodies = new Map<string, string>();
  const refusals = new Map<string, number>();
  const receiver: Receiver = {
    url: '',
    acked: new Map(),
    refused: 0,
    refusals,
    unstable: [],
    flaky: true,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let id: string | undefined;
      try {
        id = JSON.parse(raw).id;
      } catch {
        id = undefined;
      }
      const header = req.headers['x-svc-event-id'];
      if (!id || header !== id) receiver.unstable.push(`header ${String(header)} vs body ${String(id)}`);
      else {
        const earlier = bodies.get(id);
        if (earlier !== undefined && earlier !== raw) receiver.unstable.push(`${id}: body changed between attempts`);
        bodies.set(id, raw);
      }
      const refusedBefore = id ? (refusals.get(id) ?? 0) : 0;
      if (receiver.flaky && refusedBefore < 2 && random.chance(0.25)) {
        receiver.refused++;
        if (id) refusals.set(id, refusedBefore + 1);
        res.writeHead(500).end();
        return;
      }
      if (id) receiver.acked.set(id, (receiver.acked.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
