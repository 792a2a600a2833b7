/**
 * What the USPS client lends its parts (client-forms.ts, client-addresses.ts, client-abroad.ts): a
 * request as they write it, its answer, and how a call fails. A file of its own, so that the parts
 * and the client's types (client-types.ts) import it and not each other.
 */
import type { Address } from '../../domain/index.js';
import type { CarrierAnswer, CarrierRequest } from '../kit/index.js';

/** One request to USPS, as the client's calls write it. */
export interface UspsSendOptions {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path and query after the base URL: `/labels/v3/label`. */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** A purchase or a cancellation: a lost answer may mean it happened. */
  write: boolean;
}

/** USPS's answer, with the request it answers (its failure is classified by both). */
export type UspsAnswer = CarrierAnswer & { request: CarrierRequest };

/** What the client lends these calls: a call with its bearer token, and how it fails. */
export interface UspsCallKit {
  authorized(options: UspsSendOptions): Promise<UspsAnswer>;
  fail(answer: UspsAnswer): never;
  unreadable(what: string, write: boolean, status: number): never;
  mailingDate(from: Address): string;
  refuseBadAddresses(from: Address, to: Address): void;
}
