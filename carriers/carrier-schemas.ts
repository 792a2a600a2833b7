import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its function sits on `default` when imported from ESM.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

/** OpenAPI's own formats: annotations of size and encoding that JSON Schema validators do not check. */
const ANNOTATION_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password'];

function newAjv(coerceTypes: false | 'array'): Ajv {
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes }));
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
  readonly version: string;
  readonly method: string;
  readonly path: string;
  readonly operationId: string | null;
}

interface OperationIndex {
  readonly request?: { readonly mediaType: string; readonly required: boolean; readonly definition: string };
  readonly parameters?: string;
  readonly responses: Readonly<Record<string, { readonly description: string; readonly content: Readonly<Record<string, string>> }>>;
}

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
  requestProblems(body: unknown): string[];
  parameterProblems(params: RequestParameters): string[];
  /** The answer's schema for its status (exact, then `4XX`, then `default`) and media type (JSON unless named). */
  responseProblems(status: number, body: unknown, mediaType?: string): string[];
  /** The compiled validator of one definition of the file (`request`, `response-200`, a component's name). */
  validator(definition: string): ValidateFunction;
}

function problemsOf(validate: ValidateFunction, value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}

/** Wraps one generated schema file (as imported JSON) in validators compiled on first use. */
export function operationSchemas(file: unknown): OperationSchemas {
  const schema = file as { 'x-source': SchemaSource; 'x-operation': OperationIndex; definitions: Record<string, unknown> };
  const source = schema['x-source'];
  const index = schema['x-operation'];
  const key = `https://carrier-schemas.invalid/${source.carrier}/${source.name}.json`;
  for (const ajv of [bodies, parameters]) if (!ajv.getSchema(key)) ajv.addSchema(schema, key);
  const compiled = new Map<string, ValidateFunction>();
  const validatorIn = (ajv: Ajv, definition: string): ValidateFunction => {
    const id = `${ajv === bodies ? 'b' : 'p'}:${definition}`;
    let validate = compiled.get(id);
    if (!validate) {
      if (!Object.hasOwn(schema.definitions, definition)) throw new Error(`${key} has no definition ${definition}`);
      validate = ajv.getSchema(`${key}#/definitions/${definition.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (!validate) throw new Error(`${key}: definition ${definition} did not compile`);
      compiled.set(id, validate);
    }
    return validate;
  };
  const statuses = Object.keys(index.responses);
  return {
    source,
    statuses,
    requestProblems: (body) => (index.request ? problemsOf(validatorIn(bodies, index.request.definition), body) : body === undefined ? [] : ['/ the operation takes no request body']),
    parameterProblems: (params) => (index.parameters ? problemsOf(validatorIn(parameters, index.parameters), structuredClone(params)) : []),
    responseProblems: (status, body, mediaType = 'application/json') => {
      const documented = [String(status), `${String(status)[0]}XX`, 'default'].find((s) => statuses.includes(s));
      if (!documented) return [`/ status ${status} is not documented for ${source.method} ${source.path}`];
      const content = index.responses[documented].content;
      const json = Object.keys(content).find((m) => m.endsWith('json'));
      const definition = content[mediaType] ?? (mediaType === 'application/json' && json ? content[json] : undefined);
      if (!definition) return Object.keys(content).length === 0 ? [] : [`/ no ${mediaType} answer is documented for status ${documented}`];
      return problemsOf(validatorIn(bodies, definition), body);
    },
    validator: (definition) => validatorIn(bodies, definition),
  };
}
