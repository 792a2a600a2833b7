// One vocabulary (docs/architecture.md): an error code is named through `CODE` from domain/errors.ts,
// never written as a string, so a renamed or removed code fails the type-check everywhere it is used.
// Reads the tracked files only. The carrier simulator speaks the carriers' own vocabulary, and the
// SDK is a package of its own with the codes from the OpenAPI document.
import { describe, expect, it } from 'vitest';
import { RESPONSES } from '../../api/response-schemas.js';
import { ERROR_TABLE, ERRORS } from '../../domain/errors.js';
import { readText, trackedFiles } from './repository.js';

const OWN_VOCABULARY = [/^domain\//, /^test\//, /^sdk\//, /^tools\/carrier-sim\//];

const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

/** The codes each route's error responses name, by status: `{ 402: { description: '`insufficient_funds`, …' } }`. */
function documentedCodes(): { route: string; status: number; code: string }[] {
  const out: { route: string; status: number; code: string }[] = [];
  for (const [route, responses] of Object.entries(RESPONSES)) {
    for (const [status, response] of Object.entries(responses as Record<string, { description?: string }>)) {
      if (Number(status) < 400) continue;
      for (const m of (response.description ?? '').matchAll(/`([a-z_]+)`/g)) out.push({ route, status: Number(status), code: m[1] });
    }
  }
  return out;
}

describe('error codes', () => {
  it('are written as CODE.<code> outside domain/ (no string literal of a code, internal ones included)', () => {
    const files = trackedFiles().filter((f) => f.endsWith('.ts') && !OWN_VOCABULARY.some((re) => re.test(f)));
    expect(files.length).toBeGreaterThan(100);
    const literal = new RegExp(`(['"\`])(${Object.keys(ERROR_TABLE).join('|')})\\1`, 'g');
    const found: string[] = [];
    for (const file of files) {
      const code = withoutComments(readText(file) ?? '');
      for (const m of code.matchAll(literal)) found.push(`${file}: ${m[0]}`);
    }
    expect(found).toEqual([]);
  });

  it('have that one spelling: no second set of names for them (FAILURE.…, INTERNAL_FAILURES) anywhere', () => {
    // This file names them to forbid them.
    const files = trackedFiles().filter((f) => /\.(ts|js|md)$/.test(f) && f !== 'test/docs/error-codes.test.ts');
    const other = /\b(FAILURE\.[A-Za-z]|INTERNAL_FAILURES\b)/;
    const found = files.filter((f) => other.test(readText(f) ?? ''));
    expect(found).toEqual([]);
  });

  it('each answerable code is in the OpenAPI document under its own status, and no internal one is', () => {
    const documented = documentedCodes();
    expect(documented.length).toBeGreaterThan(50);
    for (const { route, status, code } of documented) {
      const entry = ERROR_TABLE[code as keyof typeof ERROR_TABLE];
      expect(entry, `${route} ${status}: ${code} is not in the error table`).toBeDefined();
      expect(entry.internal, `${route} ${status}: ${code} is internal, never answered`).toBe(false);
      expect(entry.status, `${route}: ${code} under ${status}`).toBe(status);
    }
    const named = new Set(documented.map((d) => d.code));
    // 405 answers a method the document does not declare on a path, so no operation lists it; the
    // Problem schema's `code` names it (test/api/openapi-strict.test.ts).
    const outsideOperations = new Set(['method_not_allowed']);
    for (const code of Object.keys(ERRORS).filter((c) => !outsideOperations.has(c))) {
      expect(named, `${code} is answered but not in the OpenAPI document`).toContain(code);
    }
  });
});
