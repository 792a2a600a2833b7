import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../domain/index.js';

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header, checked: 1 to 255 printable ASCII characters (contract). */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (!KEY_SHAPE.test(key)) {
    throw new ApiError('validation_failed', 'Idempotency-Key must be 1 to 255 printable ASCII characters.', {
      errors: [{ path: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  return key;
}

/** JSON with keys sorted at every level, so key order never changes a fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Method, path and the body as parsed JSON (contract: Idempotency). */
export function fingerprintOf(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return createHash('sha256').update(`${request.method} ${path} ${canonical(request.body)}`).digest('hex');
}

export const keyReused = () =>
  new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
export const keyInUse = () =>
  new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed.', {
    headers: { 'retry-after': '1' },
  });
