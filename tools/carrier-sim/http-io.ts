import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimReply } from './sim-types.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLargeError extends Error {}

/** The whole request body as text; rejects once it grows past the limit. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLargeError(`body over ${limit} bytes`));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Writes a JSON reply (or a raw one) unless the client has gone (a held or slow request may outlive it). */
export function sendJson(res: ServerResponse, reply: SimReply): void {
  if (res.destroyed || res.headersSent) return;
  const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}

/** A 200 whose body is not JSON: what a confused proxy or a half-deployed carrier sends. */
export function sendGarbage(res: ServerResponse): void {
  if (res.destroyed || res.headersSent) return;
  const text = '<html><body><h1>Service Temporarily Unavailable</h1>';
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
