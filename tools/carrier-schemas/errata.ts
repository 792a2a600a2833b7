import { isDeepStrictEqual } from 'node:util';
import type { SchemaErratum } from '../../carriers/index.js';
import { atPointer, isObject, pointerTokens, type CarrierDocument, type Json } from './document.js';

/** One targeted correction of a carrier's document (carriers/schema-sources.ts). */
export type Erratum = SchemaErratum;

/** Applies the errata of one document to it, in place; throws naming every one that no longer applies. */
export function applyErrata(doc: CarrierDocument, errata: readonly Erratum[]): Erratum[] {
  const mine = errata.filter((e) => e.document === doc.file);
  const stale: string[] = [];
  for (const erratum of mine) {
    const current = atPointer(doc.root, erratum.pointer);
    if (!isDeepStrictEqual(current, erratum.was)) {
      stale.push(`${doc.file}#${erratum.pointer}: expected ${JSON.stringify(erratum.was)}, found ${JSON.stringify(current) ?? 'nothing'} (${erratum.reason})`);
      continue;
    }
    setAtPointer(doc.root, erratum.pointer, erratum.value);
  }
  if (stale.length > 0) throw new Error(`errata that no longer apply; review and remove or update them:\n  ${stale.join('\n  ')}`);
  return mine;
}

function setAtPointer(root: Json, pointer: string, value: Json | undefined): void {
  const tokens = pointerTokens(pointer);
  const last = tokens.pop();
  const parent = atPointer(root, tokens.map((t) => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join(''));
  if (last === undefined) throw new Error('an erratum cannot replace a whole document');
  if (Array.isArray(parent)) {
    if (value === undefined) parent.splice(Number(last), 1);
    else parent[Number(last)] = value;
  } else if (isObject(parent)) {
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  } else {
    throw new Error(`erratum pointer ${pointer} has no parent object`);
  }
}

/** Every erratum of a carrier must match a document it reads (a typo in a file name is stale too). */
export function unreadErrata(errata: readonly Erratum[], documentsRead: ReadonlySet<string>): Erratum[] {
  return errata.filter((e) => !documentsRead.has(e.document));
}
