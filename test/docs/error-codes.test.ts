// One vocabulary (docs/architecture.md): an error code is named through `CODE` from domain/errors.ts,
// never written as a string, so a renamed or removed code fails the type-check everywhere it is used.
// Reads the tracked files only. The carrier simulator speaks the carriers' own vocabulary, and the
// SDK is a package of its own with the codes from the OpenAPI document.
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../domain/errors.js';
import { readText, trackedFiles } from './repository.js';

const OWN_VOCABULARY = [/^domain\//, /^test\//, /^sdk\//, /^tools\/carrier-sim\//];

const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

describe('error codes', () => {
  it('are written as CODE.<code> outside domain/ (no string literal of a code)', () => {
    const files = trackedFiles().filter((f) => f.endsWith('.ts') && !OWN_VOCABULARY.some((re) => re.test(f)));
    expect(files.length).toBeGreaterThan(100);
    const literal = new RegExp(`(['"\`])(${Object.keys(ERRORS).join('|')})\\1`, 'g');
    const found: string[] = [];
    for (const file of files) {
      const code = withoutComments(readText(file) ?? '');
      for (const m of code.matchAll(literal)) found.push(`${file}: ${m[0]}`);
    }
    expect(found).toEqual([]);
  });
});
