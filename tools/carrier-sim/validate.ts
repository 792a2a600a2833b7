import { isRecord } from '../../carriers/index.js';
import { SimHttpError, type SimRequest } from './sim-types.js';

/** The request body as a JSON object, or a 400 the client can read. */
export function jsonObject(req: SimRequest): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.rawBody);
  } catch {
    throw new SimHttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (!isRecord(parsed)) throw new SimHttpError(400, 'invalid_request', 'The request body must be a JSON object.');
  return parsed;
}

export function requiredString(obj: Record<string, unknown>, key: string, path = key): string {
  const value = obj[key];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new SimHttpError(400, 'invalid_request', `${path} must be a non-empty string.`);
  }
  return value;
}

export function optionalString(obj: Record<string, unknown>, key: string, path = key): string | undefined {
  if (obj[key] === undefined || obj[key] === null) return undefined;
  return requiredString(obj, key, path);
}

export function positiveInteger(obj: Record<string, unknown>, key: string, path = key): number {
  const value = obj[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new SimHttpError(400, 'invalid_request', `${path} must be a positive integer.`);
  }
  return value;
}

export function requiredObject(obj: Record<string, unknown>, key: string, path = key): Record<string, unknown> {
  const value = obj[key];
  if (!isRecord(value)) throw new SimHttpError(400, 'invalid_request', `${path} must be an object.`);
  return value;
}

export function countryCode(obj: Record<string, unknown>, key: string, path = key): string {
  const value = requiredString(obj, key, path).toUpperCase();
  if (!/^[A-Z]{2}$/.test(value)) throw new SimHttpError(400, 'invalid_request', `${path} must be a two-letter country code.`);
  return value;
}

/** JSON with keys sorted, so two requests that differ only in key order compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
