/**
 * The fields of a request that its document does not define. A request we send carries only what
 * the carrier's document defines, so a field no schema names at its place is a problem, even where
 * the document leaves its objects open. "Defined" is read across the document's combinations: a
 * property of any `allOf` part counts (a pickup's address is FedEx's `Address`, which has
 * `residential`, and a narrower one that has not; both are the document's), and of an `anyOf` or
 * `oneOf` only the branches the value fits. JSON Schema's own `unevaluatedProperties: false` cannot
 * say this: set on each part, every part must define every field.
 */

type Schema = Record<string, unknown>;
/** A schema and where it sits in its file (a JSON pointer), so that a branch can be validated alone. */
type Located = { schema: Schema; at: string };
/** Whether the value fits the (open) schema at a pointer of the file. */
export type FitsAt = (pointer: string, value: unknown) => boolean;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const encode = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');
const decode = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');

function at(root: Schema, pointer: string): unknown {
  let node: unknown = root;
  for (const token of pointer.split('/').slice(1).map(decode)) node = Array.isArray(node) ? node[Number(token)] : isSchema(node) ? node[token] : undefined;
  return node;
}

/** Every schema that applies to a value at once: the schema, its `$ref`s, its `allOf` parts, and the `anyOf`/`oneOf` branches the value fits. */
function applying(root: Schema, starts: readonly Located[], value: unknown, fits: FitsAt): Located[] {
  const out: Located[] = [];
  const seen = new Set<string>();
  const visit = (s: Located): void => {
    if (seen.has(s.at)) return;
    seen.add(s.at);
    out.push(s);
    if (typeof s.schema.$ref === 'string' && s.schema.$ref.startsWith('#')) {
      const target = at(root, s.schema.$ref.slice(1));
      if (isSchema(target)) visit({ schema: target, at: s.schema.$ref.slice(1) });
    }
    const parts = (key: string) => (Array.isArray(s.schema[key]) ? (s.schema[key] as unknown[]) : []).flatMap((p, i) => (isSchema(p) ? [{ schema: p, at: `${s.at}/${key}/${i}` }] : []));
    for (const part of parts('allOf')) visit(part);
    for (const key of ['anyOf', 'oneOf']) {
      const branches = parts(key);
      const fitting = branches.filter((b) => fits(b.at, value));
      // A value that fits no branch has its schema problems already; its fields are read against them all.
      for (const branch of fitting.length > 0 ? fitting : branches) visit(branch);
    }
  };
  for (const start of starts) visit(start);
  return out;
}

/**
 * `path must NOT have unevaluated properties (name)` for each field of `value` that none of the
 * schemas applying to it defines (`starts`: the schemas at `pointers` of `root`; all of them count).
 */
export function undefinedFields(root: Schema, pointers: readonly string[], value: unknown, fits: FitsAt): string[] {
  const starts = pointers.flatMap((pointer) => {
    const schema = at(root, pointer);
    return isSchema(schema) ? [{ schema, at: pointer }] : [];
  });
  return fieldsOutside(root, starts, value, '', fits);
}

function fieldsOutside(root: Schema, starts: readonly Located[], value: unknown, path: string, fits: FitsAt): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const all = applying(root, starts, value, fits);
  if (Array.isArray(value)) {
    const items = all.flatMap((s) => (isSchema(s.schema.items) ? [{ schema: s.schema.items, at: `${s.at}/items` }] : []));
    return items.length > 0 ? value.flatMap((item, i) => fieldsOutside(root, items, item, `${path}/${i}`, fits)) : [];
  }
  // A free-form object (no property named, or other properties allowed) takes anything.
  const named = all.filter((s) => isSchema(s.schema.properties) || isSchema(s.schema.patternProperties));
  if (named.length === 0 || all.some((s) => s.schema.additionalProperties === true || isSchema(s.schema.additionalProperties))) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([name, inner]) => {
    const defining: Located[] = named.flatMap((s) => {
      const props = isSchema(s.schema.properties) ? s.schema.properties : {};
      const patterns = isSchema(s.schema.patternProperties) ? s.schema.patternProperties : {};
      const direct = isSchema(props[name]) ? [{ schema: props[name] as Schema, at: `${s.at}/properties/${encode(name)}` }] : [];
      const matched = Object.entries(patterns).flatMap(([re, sub]) => (isSchema(sub) && new RegExp(re, 'u').test(name) ? [{ schema: sub, at: `${s.at}/patternProperties/${encode(re)}` }] : []));
      return [...direct, ...matched];
    });
    if (defining.length === 0) return [`${path || '/'} must NOT have unevaluated properties (${name})`];
    return fieldsOutside(root, defining, inner, `${path}/${encode(name)}`, fits);
  });
}

/**
 * The pointers of every `anyOf`/`oneOf` branch reachable from the schemas at `pointers`: what
 * `undefinedFields` may validate alone, so that a simulator compiles them all when it starts.
 */
export function branchPointers(root: Schema, pointers: readonly string[]): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, pointer: string): void => {
    if (!isSchema(node) && !Array.isArray(node)) return;
    if (seen.has(pointer)) return;
    seen.add(pointer);
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${pointer}/${i}`));
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) visit(at(root, node.$ref.slice(1)), node.$ref.slice(1));
    for (const key of ['anyOf', 'oneOf']) if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((_, i) => found.push(`${pointer}/${key}/${i}`));
    for (const [key, value] of Object.entries(node)) if (key !== '$ref' && key !== 'enum' && key !== 'examples') visit(value, `${pointer}/${encode(key)}`);
  };
  for (const pointer of pointers) visit(at(root, pointer), pointer);
  return found;
}
