import { UPS_SCHEMAS } from '../../../carriers/ups/schemas/index.js';

/** A UPS operation, as its schema file under carriers/ups/schemas is named. */
export type UpsOperation = keyof typeof UPS_SCHEMAS;

/** Every way a request body breaks the schema generated from UPS's document (closed: nothing it does not define). */
export function upsRequestProblems(operation: UpsOperation, body: unknown): string[] {
  return UPS_SCHEMAS[operation].requestProblems(body);
}

/** Every way an answer breaks what UPS's document says of that operation's answers with this status. */
export function upsAnswerProblems(operation: UpsOperation, status: number, body: unknown): string[] {
  return UPS_SCHEMAS[operation].responseProblems(status, body);
}
