import { Ajv } from 'ajv';
import { operationSchemas } from '../../carriers/index.js';
import { applyErrata, unreadErrata } from './errata.js';
import { isObject, readDocument, type CarrierDocument, type Json, type JsonObject } from './document.js';
import { operationSchema } from './operation.js';
import type { CarrierSpec } from './carriers.js';
import { indexModule } from './index-module.js';
import { typesModule } from './types-module.js';

/** The generated files of one carrier: path (relative to the repository's root) → content. */
export type GeneratedFiles = Map<string, string>;

const metaCheck = new Ajv({ strict: false });

/** JSON Schema's formats that the documents use, and OpenAPI's own (annotations, carriers/carrier-schemas.ts). */
const KNOWN_FORMATS = new Set(['date', 'date-time', 'time', 'email', 'uri', 'uri-reference', 'hostname', 'ipv4', 'ipv6', 'uuid', 'int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']);

function formatsIn(value: Json): string[] {
  if (Array.isArray(value)) return value.flatMap(formatsIn);
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === 'format' && typeof inner === 'string' ? [inner] : key === 'enum' || key === 'default' ? [] : formatsIn(inner)));
}

/** A document whose schema no JSON Schema validator accepts needs an erratum: say where. */
function assertValidSchema(file: string, schema: JsonObject): void {
  const unknown = formatsIn(schema).filter((f) => !KNOWN_FORMATS.has(f));
  if (unknown.length > 0) throw new Error(`${file} uses formats no validator knows: ${unknown.join(', ')} (add an erratum for the document)`);
  if (metaCheck.validateSchema(schema)) return;
  const problems = (metaCheck.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  throw new Error(`${file} is not a valid JSON Schema (add an erratum for the document):\n  ${problems.join('\n  ')}`);
}

/**
 * The document's own request examples named by the operation must fit its request schema, checked
 * as a request we send (closed): where one does not, the document contradicts itself, and an
 * erratum says which side is right (or the example is not listed, with the reason).
 */
function assertExamplesFit(file: string, schema: JsonObject): void {
  const examples = (schema['x-examples'] ?? []) as { pointer: string; value: Json }[];
  if (examples.length === 0) return;
  const request = operationSchemas(schema);
  const broken = examples.flatMap(({ pointer, value }) => request.requestProblems(value).map((p) => `${pointer}: ${p}`));
  if (broken.length > 0) throw new Error(`${file}: the document's examples break its request schema (add an erratum, or drop the example with its reason):\n  ${broken.join('\n  ')}`);
}

/** Prettified JSON with a final newline: the only JSON layout the generator writes. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/**
 * Everything under `carriers/<carrier>/schemas/` for one carrier, from the documents in `specsDir`:
 * one JSON Schema file per operation, their TypeScript types and the module that loads them.
 * Pure apart from reading the documents: the same documents give the same bytes.
 */
export async function generateCarrier(specsDir: string, spec: CarrierSpec): Promise<GeneratedFiles> {
  const documents = new Map<string, CarrierDocument>();
  for (const file of [...new Set(spec.operations.map((op) => op.document))]) {
    const doc = readDocument(specsDir, file);
    applyErrata(doc, spec.errata);
    documents.set(file, doc);
  }
  const unread = unreadErrata(spec.errata, new Set(documents.keys()));
  if (unread.length > 0) throw new Error(`${spec.carrier}: errata name documents no operation reads: ${unread.map((e) => e.document).join(', ')}`);

  const folder = `carriers/${spec.carrier}/schemas`;
  const files: GeneratedFiles = new Map();
  if (spec.operations.length === 0) return files;
  const schemas = new Map<string, JsonObject>();
  for (const op of spec.operations) {
    const schema = operationSchema(spec.carrier, documents.get(op.document)!, op, spec.errata);
    assertValidSchema(`${folder}/${op.name}.json`, schema);
    assertExamplesFit(`${folder}/${op.name}.json`, schema);
    schemas.set(op.name, schema);
    files.set(`${folder}/${op.name}.json`, prettyJson(schema));
  }
  files.set(`${folder}/types.ts`, await typesModule(spec.carrier, schemas));
  files.set(`${folder}/index.ts`, indexModule(spec.carrier, [...schemas.keys()]));
  return files;
}
