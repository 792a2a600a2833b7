import { SCAN_STATUSES, type ScanStatus } from '../domain/index.js';

/** Small readers for carrier JSON: each returns undefined when the shape is not the promised one. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringField(obj: Record<string, unknown>, key: string): string | undefined {
  const value = obj[key];
  return typeof value === 'string' ? value : undefined;
}

export function firstString(obj: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = obj[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** Each element decoded, or undefined when the value is not an array or any element is malformed. */
export function decodeArray<T>(value: unknown, decodeItem: (item: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: T[] = [];
  for (const item of value) {
    const decoded = decodeItem(item);
    if (decoded === undefined) return undefined;
    out.push(decoded);
  }
  return out;
}

export function isScanStatus(value: unknown): value is ScanStatus {
  return (SCAN_STATUSES as readonly unknown[]).includes(value);
}
