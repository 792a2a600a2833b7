// Holds real answers to the served OpenAPI document: each answer's status must be described for
// its operation, with its content type, and its body must validate against the described schema.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import type { Answer } from '../support/stack.js';

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, any> };

/** Every documented operation, as "METHOD /path/{template}". */
export const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );

/** Points `#/components/...` references at the document registered under `doc`. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `doc${v}` : rebase(v)]),
  );
}

export function conformance(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const templates = Object.keys(doc.paths)
    .map((t) => ({ t, re: new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`), params: (t.match(/\{/g) ?? []).length }))
    .sort((a, b) => a.params - b.params);
  const seen = new Map<string, Set<number>>();
  const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();

  /** Checks one answer of `METHOD path` against the document and records the operation as exercised. */
  function check(method: string, path: string, answer: Answer) {
    const bare = path.split('?')[0];
    const template = templates.find((x) => x.re.test(bare))?.t;
    expect(template, `${method} ${bare} is not in the document`).toBeDefined();
    const op = doc.paths[template!][method.toLowerCase()];
    expect(op, `${method} ${template} is not in the document`).toBeDefined();
    const response = op.responses?.[String(answer.status)];
    expect(response, `${method} ${template} answered ${answer.status}, which the document does not describe: ${answer.text}`).toBeDefined();
    const type = String(answer.headers['content-type'] ?? '').split(';')[0].trim();
    const media = response.content?.[type];
    expect(media, `${method} ${template} ${answer.status} answered ${type}, not described (${Object.keys(response.content ?? {})})`).toBeDefined();
    if (type.endsWith('json')) {
      const key = `${method} ${template} ${answer.status} ${type}`;
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(rebase(media.schema) as object);
        compiled.set(key, validate);
      }
      const ok = validate(answer.body);
      expect(ok, `${key}: ${ajv.errorsText(validate.errors)}\n${answer.text}`).toBe(true);
    }
    const opKey = `${method.toUpperCase()} ${template}`;
    if (!seen.has(opKey)) seen.set(opKey, new Set());
    seen.get(opKey)!.add(answer.status);
    return answer;
  }
  return { check, seen };
}
