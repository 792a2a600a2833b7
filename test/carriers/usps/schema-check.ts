import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { USPS_SCHEMAS } from '../../../carriers/usps/schemas/index.js';

/** A USPS operation, as its schema file under carriers/usps/schemas is named. */
export type UspsOperation = keyof typeof USPS_SCHEMAS;

/** Every way a request body breaks the schema generated from USPS's document (closed: nothing it does not define). */
export function uspsRequestProblems(operation: UspsOperation, body: unknown): string[] {
  return USPS_SCHEMAS[operation].requestProblems(body);
}

/** Every way a query breaks the operation's documented query parameters. */
export function uspsQueryProblems(operation: UspsOperation, query: Record<string, string>): string[] {
  return USPS_SCHEMAS[operation].parameterProblems({ query });
}

/** Every way an answer breaks what USPS's document says of the operation's answers with this status and media type. */
export function uspsAnswerProblems(operation: UspsOperation, status: number, body: unknown, mediaType?: string): string[] {
  return USPS_SCHEMAS[operation].responseProblems(status, body, mediaType);
}

/** The vendor JSON a label request asks for with its Accept header. */
export const LABELS_JSON = 'application/vnd.usps.labels+json';

// The OAuth token has no document of its own: its request is checked against our schema (carriers/usps/token.ts).
const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<TSchema, ValidateFunction>();

/** Every way `value` breaks one of our own schemas, as `path message` lines; empty when it fits. */
export function schemaProblems(schema: TSchema, value: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}
