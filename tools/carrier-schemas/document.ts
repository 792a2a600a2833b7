import { readFileSync } from 'node:fs';
import path from 'node:path';
import jsyaml from 'js-yaml';

/** A carrier's OpenAPI 3.0 document as parsed: plain JSON values. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One parsed document and where it came from, relative to the carrier documents' folder. */
export interface CarrierDocument {
  readonly file: string;
  readonly title: string;
  /** `info.version`, or null where the document gives none (UPS's files do not). */
  readonly version: string | null;
  readonly root: JsonObject;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads one document. UPS's and DHL's files hold TAB characters inside YAML and CRLF line ends; a
 * TAB is replaced by spaces first (the carrier-specs README's advice). js-yaml reads them with the
 * YAML 1.2 core schema (no timestamps: a date stays the string the document wrote) and, unlike the
 * strictest parsers, takes UPS's multi-line quoted descriptions indented at their key's level.
 */
export function readDocument(specsDir: string, file: string): CarrierDocument {
  const text = readFileSync(path.join(specsDir, file), 'utf8').replace(/\t/g, '  ');
  const parsed: unknown = file.endsWith('.json') ? JSON.parse(text) : jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA, filename: file });
  if (!isObject(parsed) || typeof parsed.openapi !== 'string' || !parsed.openapi.startsWith('3.')) {
    throw new Error(`${file}: not an OpenAPI 3 document`);
  }
  const info = isObject(parsed.info) ? parsed.info : {};
  return { file, title: String(info.title ?? '').trim(), version: info.version === undefined || info.version === null ? null : String(info.version), root: parsed };
}

/** The JSON Pointer's tokens (RFC 6901), from `#/a/b` or `/a/b`. */
export function pointerTokens(pointer: string): string[] {
  const bare = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (bare === '') return [];
  if (!bare.startsWith('/')) throw new Error(`not a JSON pointer: ${pointer}`);
  return bare
    .slice(1)
    .split('/')
    .map((t) => decodeURIComponent(t).replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function encodeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The value at a JSON pointer, or undefined when the path does not exist. */
export function atPointer(root: Json, pointer: string): Json | undefined {
  let node: Json | undefined = root;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** Follows `$ref`s inside the same document (parameters, responses, request bodies) to the object. */
export function deref(doc: CarrierDocument, value: Json | undefined, seen: string[] = []): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.$ref !== 'string') return value;
  const ref = value.$ref.trim();
  if (!ref.startsWith('#/')) throw new Error(`${doc.file}: external $ref ${ref} is not supported`);
  if (seen.includes(ref)) throw new Error(`${doc.file}: $ref cycle through ${ref}`);
  const target = atPointer(doc.root, ref);
  if (target === undefined) throw new Error(`${doc.file}: $ref ${ref} leads nowhere`);
  return deref(doc, target, [...seen, ref]);
}
