import { Ajv2019 } from 'ajv/dist/2019.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { branchPointers, undefinedFields } from './schema-fields.js';

// ajv-formats is CommonJS: its function sits on `default` when imported from ESM.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2019) => Ajv2019 }).default;

/** OpenAPI's own formats: annotations of size and encoding that JSON Schema validators do not check. */
const ANNOTATION_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password'];

/** Draft 2019-09's validator: the generated files are draft-07, which it reads alike. */
function newAjv(coerceTypes: false | 'array'): Ajv2019 {
  const ajv = addFormats(new Ajv2019({ allErrors: true, strict: false, coerceTypes }));
  for (const format of ANNOTATION_FORMATS) ajv.addFormat(format, true);
  return ajv;
}

/** Bodies are checked as sent: no coercion. Parameters arrive as text, so `"2"` is the number 2 there. */
const bodies = newAjv(false);
const parameters = newAjv('array');

/** Which carrier document, version and operation a generated schema file was made from. */
export interface SchemaSource {
  readonly carrier: string;
  /** The operation's name: its file is `carriers/<carrier>/schemas/<name>.json`. */
  readonly name: string;
  readonly document: string;
  readonly title: string;
  /** The document's `info.version`; null where it gives none. */
  readonly version: string | null;
  readonly method: string;
  readonly path: string;
  readonly operationId: string | null;
}

interface OperationIndex {
  readonly request?: { readonly mediaType: string; readonly required: boolean; readonly definition: string };
  readonly parameters?: string;
  readonly responses: Readonly<Record<string, { readonly description: string; readonly content: Readonly<Record<string, string>> }>>;
}

type SchemaFile = { 'x-source': SchemaSource; 'x-operation': OperationIndex; definitions: Record<string, unknown> };

/** A request's parameters as a server sees them: path and query values as text, headers by lower-case name. */
export interface RequestParameters {
  readonly path?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | readonly string[]>>;
  readonly header?: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** One operation's validators; each `…Problems` answers `path message` lines, empty when the value fits. */
export interface OperationSchemas {
  readonly source: SchemaSource;
  /** The documented answers' statuses (`200`, `4XX`, `default`…). */
  readonly statuses: readonly string[];
  /**
   * The request body against the document, closed: a property the document does not define is a
   * problem too, since we send only what the carrier's document defines (schema-fields.ts).
   */
  requestProblems(body: unknown): string[];
  parameterProblems(params: RequestParameters): string[];
  /** The answer's schema for its status (exact, then `4XX`, then `default`) and media type (JSON unless named). */
  responseProblems(status: number, body: unknown, mediaType?: string): string[];
  /** The compiled validator of one definition of the file, as the document wrote it (`request`, `response-200`, a component's name). */
  validator(definition: string): ValidateFunction;
  /** Compiles every validator now (a simulator at start), so that no request waits for one. */
  warm(): void;
}

function describe(e: ErrorObject): string {
  const extra = e.params.unevaluatedProperty ?? e.params.additionalProperty;
  return `${e.instancePath || '/'} ${e.message ?? ''}${extra === undefined ? '' : ` (${String(extra)})`}`.trim();
}

function problemsOf(validate: ValidateFunction, value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map(describe);
}

/** Wraps one generated schema file (as imported JSON) in validators compiled on first use. */
export function operationSchemas(file: unknown): OperationSchemas {
  const { $schema: _draft, ...schema } = file as SchemaFile & { $schema?: string };
  const source = schema['x-source'];
  const index = schema['x-operation'];
  const key = `https://carrier-schemas.invalid/${source.carrier}/${source.name}.json`;
  const compiled = new Map<string, ValidateFunction>();
  const validatorIn = (ajv: Ajv2019, id: string, definition: string): ValidateFunction => {
    let validate = compiled.get(id);
    if (validate) return validate;
    if (!Object.hasOwn(schema.definitions, definition)) throw new Error(`${key} has no definition ${definition}`);
    if (!ajv.getSchema(key)) ajv.addSchema(schema, key);
    validate = ajv.getSchema(`${key}#/definitions/${definition.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (!validate) throw new Error(`${key}: definition ${definition} did not compile`);
    compiled.set(id, validate);
    return validate;
  };
  // Whether a value fits one branch of a schema (undefinedFields reads only the branches a value fits).
  const branches = new Map<string, ValidateFunction>();
  const fits = (pointer: string, value: unknown): boolean => {
    let validate = branches.get(pointer);
    if (!validate) {
      validatorIn(bodies, `open:${request?.definition ?? ''}`, request?.definition ?? '');
      validate = bodies.getSchema(`${key}#${pointer}`);
      if (!validate) throw new Error(`${key}: no schema at ${pointer}`);
      branches.set(pointer, validate);
    }
    return validate(value);
  };
  const statuses = Object.keys(index.responses);
  const request = index.request;
  const operation: OperationSchemas = {
    source,
    statuses,
    requestProblems: (body) => {
      if (!request) return body === undefined ? [] : ['/ the operation takes no request body'];
      const problems = problemsOf(validatorIn(bodies, `open:${request.definition}`, request.definition), body);
      return [...problems, ...undefinedFields(schema, [`/definitions/${request.definition}`], body, fits)];
    },
    parameterProblems: (params) => (index.parameters ? problemsOf(validatorIn(parameters, 'parameters', index.parameters), structuredClone(params)) : []),
    responseProblems: (status, body, mediaType = 'application/json') => {
      const documented = [String(status), `${String(status)[0]}XX`, 'default'].find((s) => statuses.includes(s));
      if (!documented) return [`/ status ${status} is not documented for ${source.method} ${source.path}`];
      const content = index.responses[documented].content;
      const json = Object.keys(content).find((m) => m.endsWith('json'));
      const definition = content[mediaType] ?? (mediaType === 'application/json' && json ? content[json] : undefined);
      if (!definition) return Object.keys(content).length === 0 ? [] : [`/ no ${mediaType} answer is documented for status ${documented}`];
      return problemsOf(validatorIn(bodies, `open:${definition}`, definition), body);
    },
    validator: (definition) => validatorIn(bodies, `open:${definition}`, definition),
    warm: () => {
      operation.requestProblems(undefined);
      if (request) for (const pointer of branchPointers(schema, [`/definitions/${request.definition}`])) fits(pointer, undefined);
      operation.parameterProblems({});
      for (const content of Object.values(index.responses)) for (const definition of Object.values(content.content)) operation.validator(definition);
    },
  };
  return operation;
}
