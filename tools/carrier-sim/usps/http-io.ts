import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { SimLabel } from './state.js';

/** The USPS simulator's small HTTP helpers. */

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** JSON, or a form body (the token endpoint takes either). */
export function parseBody(text: string, contentType: string | undefined): unknown {
  if ((contentType ?? '').includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  return JSON.parse(text);
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

export function canonical(value: unknown): string {
  return JSON.stringify(value);
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

export function disputeId(l: SimLabel): string {
  return String(100000 + Number(l.trackingNumber.slice(-5)));
}
