import { FEDEX_SCHEMAS } from '../../../carriers/fedex/schemas/index.js';
import type { FedexSimOperation } from './simulator.js';

/**
 * The FedEx simulator's checks, on the schemas generated from FedEx's documents: every request
 * against its operation's request schema, closed (a field the document does not define is a
 * problem here, as it may be to a server that is not ours), and every answer against the schema of
 * its status.
 */
const OPERATIONS: Record<Exclude<FedexSimOperation, 'token'>, keyof typeof FEDEX_SCHEMAS> = {
  rate: 'rates-quotes',
  ship: 'shipments',
  cancel: 'shipments-cancel',
  track: 'trackingnumbers',
  reference: 'referencenumbers',
  pickup: 'pickups',
  pickup_cancel: 'pickups-cancel',
};

/**
 * Compiles every validator the checks use (a few seconds for FedEx's large schemas), so that the
 * simulator pays it when it starts and never inside a client's deadline.
 */
export function warmUpFedexSchemas(): void {
  for (const name of Object.values(OPERATIONS)) FEDEX_SCHEMAS[name].warm();
}

/** The `validate` hook of the FedEx simulator: `path message` lines, empty when the body fits. */
export function fedexSchemaCheck(direction: 'request' | 'response', operation: FedexSimOperation, body: unknown, status: number): string[] {
  // The token endpoint has no document: nothing to check it against.
  if (operation === 'token') return [];
  const schemas = FEDEX_SCHEMAS[OPERATIONS[operation]];
  if (direction === 'request') return schemas.requestProblems(body);
  // An answer of a status the document does not list comes from a fault we injected, not FedEx's behaviour.
  const documented = [String(status), `${String(status)[0]}XX`, 'default'].some((s) => schemas.statuses.includes(s));
  return documented ? schemas.responseProblems(status, body) : [];
}
