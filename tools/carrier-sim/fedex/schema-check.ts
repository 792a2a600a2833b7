import { isRecord } from '../../../carriers/index.js';
import { FEDEX_SCHEMAS } from '../../../carriers/fedex/schemas/index.js';
import pickups from '../../../carriers/fedex/schemas/pickups.json' with { type: 'json' };
import pickupsCancel from '../../../carriers/fedex/schemas/pickups-cancel.json' with { type: 'json' };
import ratesQuotes from '../../../carriers/fedex/schemas/rates-quotes.json' with { type: 'json' };
import referencenumbers from '../../../carriers/fedex/schemas/referencenumbers.json' with { type: 'json' };
import shipments from '../../../carriers/fedex/schemas/shipments.json' with { type: 'json' };
import shipmentsCancel from '../../../carriers/fedex/schemas/shipments-cancel.json' with { type: 'json' };
import trackingnumbers from '../../../carriers/fedex/schemas/trackingnumbers.json' with { type: 'json' };
import type { FedexSimOperation } from './index.js';

/**
 * The FedEx simulator's checks, on the schemas generated from FedEx's documents: every request
 * against its operation's request schema, and every answer against the schema of its status. The
 * request bodies of Rate and Pickup are documented as "one of" the full schema and sample payloads
 * (examples with no schema of their own, which match anything), so they are checked against the
 * full schema. A request must also carry only fields the document defines: a field it does not
 * name is a problem here, as it may be to a server that is not ours.
 */

type Schema = { definitions: Record<string, unknown> };
const OPERATIONS: Record<Exclude<FedexSimOperation, 'token'>, { name: keyof typeof FEDEX_SCHEMAS; file: Schema; request: string }> = {
  rate: { name: 'rates-quotes', file: ratesQuotes as Schema, request: 'Full_Schema_Quote_Rate' },
  ship: { name: 'shipments', file: shipments as Schema, request: 'request' },
  cancel: { name: 'shipments-cancel', file: shipmentsCancel as Schema, request: 'request' },
  track: { name: 'trackingnumbers', file: trackingnumbers as Schema, request: 'request' },
  reference: { name: 'referencenumbers', file: referencenumbers as Schema, request: 'request' },
  pickup: { name: 'pickups', file: pickups as Schema, request: 'Full_Schema_Create_Pickup' },
  pickup_cancel: { name: 'pickups-cancel', file: pickupsCancel as Schema, request: 'Full_Schema_Cancel_Pickup' },
};

/**
 * Compiles every validator the checks use (a few seconds for FedEx's large schemas), so that the
 * simulator pays it when it starts and never inside a client's deadline.
 */
export function warmUpFedexSchemas(): void {
  for (const { name, request } of Object.values(OPERATIONS)) {
    const schemas = FEDEX_SCHEMAS[name];
    schemas.validator(request);
    for (const status of schemas.statuses) if (/^\d{3}$/.test(status)) schemas.responseProblems(Number(status), null);
  }
}

/** The `validate` hook of the FedEx simulator: `path message` lines, empty when the body fits. */
export function fedexSchemaCheck(direction: 'request' | 'response', operation: FedexSimOperation, body: unknown, status: number): string[] {
  // The token endpoint has no document: nothing to check it against.
  if (operation === 'token') return [];
  const { name, file, request } = OPERATIONS[operation];
  const schemas = FEDEX_SCHEMAS[name];
  if (direction === 'request') {
    const validate = schemas.validator(request);
    const problems = validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
    return [...problems, ...undocumentedFields(file, { $ref: `#/definitions/${request}` }, body, '')];
  }
  // An answer of a status the document does not list comes from a fault we injected, not FedEx's behaviour.
  const documented = [String(status), `${String(status)[0]}XX`, 'default'].some((s) => schemas.statuses.includes(s));
  return documented ? schemas.responseProblems(status, body) : [];
}

function resolve(file: Schema, schema: unknown): Record<string, unknown> {
  let s = schema;
  for (let depth = 0; isRecord(s) && typeof s.$ref === 'string' && depth < 50; depth++) {
    s = file.definitions[decodeURIComponent(s.$ref.replace(/^#\/definitions\//, '')).replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return isRecord(s) ? s : {};
}

/** A schema and every schema it combines (allOf, anyOf, oneOf), resolved. */
function branches(file: Schema, schema: unknown, seen = new Set<unknown>()): Record<string, unknown>[] {
  const s = resolve(file, schema);
  if (seen.has(s)) return [];
  seen.add(s);
  const parts = ['allOf', 'anyOf', 'oneOf'].flatMap((k) => (Array.isArray(s[k]) ? (s[k] as unknown[]) : []));
  return [s, ...parts.flatMap((p) => branches(file, p, seen))];
}

/** The fields of `value` that the schema does not define, as `path is not defined by the document` lines. */
export function undocumentedFields(file: Schema, schema: unknown, value: unknown, path: string): string[] {
  const all = branches(file, schema);
  if (Array.isArray(value)) {
    const items = all.map((b) => b.items).filter((i) => i !== undefined);
    return items.length ? value.flatMap((v, i) => undocumentedFields(file, { anyOf: items }, v, `${path}/${i}`)) : [];
  }
  if (!isRecord(value)) return [];
  const declared = all.filter((b) => isRecord(b.properties)).map((b) => b.properties as Record<string, unknown>);
  // A free-form object (no properties named anywhere) takes anything.
  if (!declared.length || all.some((b) => isRecord(b.additionalProperties))) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const subs = declared.filter((p) => Object.hasOwn(p, key)).map((p) => p[key]);
    return subs.length ? undocumentedFields(file, { anyOf: subs }, v, `${path}/${key}`) : [`${path}/${key} is not defined by the document`];
  });
}
