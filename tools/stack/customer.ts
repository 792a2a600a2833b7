import { request } from 'undici';
import type { CreateAccountOptions } from '../../admin/index.js';
import type { LocalStack } from './stack.js';

export interface TestAccount {
  id: string;
  /** Keys with every scope. */
  testKey: string;
  liveKey: string;
}

/** A fresh account with API access, a sandbox key and a live key: tests never share data. */
export async function createAccount(
  stack: Pick<LocalStack, 'admin'>,
  o: Partial<CreateAccountOptions> & { topUp?: string } = {},
): Promise<TestAccount> {
  const { id } = await stack.admin.createAccount({ name: o.name ?? 'Test Ltd', funding: o.funding ?? 'wallet', ...o });
  await stack.admin.enableApi(id);
  if (o.topUp) await stack.admin.topUp(id, o.topUp);
  const testKey = (await stack.admin.createKey(id, { mode: 'test' })).key;
  const liveKey = (await stack.admin.createKey(id, { mode: 'live' })).key;
  return { id, testKey, liveKey };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/** A customer's HTTP call. */
export async function call(
  stack: { url: string },
  method: string,
  path: string,
  o: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  let body: string | undefined = o.rawBody;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${stack.url}${path}`, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body: parsed, text };
}

export const address = (over: Record<string, string> = {}) => ({
  name: 'Ada Lovelace',
  line1: '1 Main Street',
  city: 'London',
  postcode: 'N1 9GU',
  country: 'GB',
  ...over,
});

export const parcel = (over: Record<string, number> = {}) => ({
  weight_g: 1200,
  length_mm: 300,
  width_mm: 200,
  height_mm: 100,
  ...over,
});
