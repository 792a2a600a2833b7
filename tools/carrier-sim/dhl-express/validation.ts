import { DHL_EXPRESS_SCHEMAS } from '../../../carriers/dhl-express/schemas/index.js';
import type { DhlSimCall, DhlSimOperation, DhlSimulatorOptions } from './simulator.js';

/** Each simulated operation's schemas, generated from the MyDHL API document (`npm run carrier-schemas`). */
const SCHEMAS: Record<DhlSimOperation, (typeof DHL_EXPRESS_SCHEMAS)[keyof typeof DHL_EXPRESS_SCHEMAS]> = {
  rate: DHL_EXPRESS_SCHEMAS['rates-many'],
  ship: DHL_EXPRESS_SCHEMAS.shipments,
  track: DHL_EXPRESS_SCHEMAS['shipments-tracking'],
  reference: DHL_EXPRESS_SCHEMAS.tracking,
  pickup: DHL_EXPRESS_SCHEMAS.pickups,
  pickup_cancel: DHL_EXPRESS_SCHEMAS['pickups-cancel'],
};

/**
 * Every request checked as DHL's document defines it: its body (closed: a property the document does
 * not define is a problem), its path and query parameters and its headers; every answer checked
 * against the document's answer of its status.
 */
export const DHL_DOCUMENT_VALIDATION: NonNullable<DhlSimulatorOptions['validate']> = {
  request(call: DhlSimCall, body: unknown): string[] {
    const schemas = SCHEMAS[call.operation];
    const query: Record<string, string | string[]> = {};
    for (const key of new Set(call.request.query.keys())) {
      const values = call.request.query.getAll(key);
      query[key] = values.length > 1 ? values : values[0];
    }
    return [...schemas.requestProblems(body), ...schemas.parameterProblems({ path: call.params, query, header: call.request.headers })];
  },
  // The document declares HTTP Basic on every operation but documents no 401: the refusal of wrong
  // credentials has no schema to check (its body is DHL's usual problem shape).
  response: (call, status, body) => (status === 401 ? [] : SCHEMAS[call.operation].responseProblems(status, body)),
};

/**
 * Compiles every validator now (a few seconds for DHL's large schemas), so that no request waits for
 * it: a client's deadline is shorter than the first compilation of the shipment schema.
 */
export function compileDhlValidators(): void {
  for (const schemas of Object.values(SCHEMAS)) schemas.warm();
}
