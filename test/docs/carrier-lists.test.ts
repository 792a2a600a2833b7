// "Nothing else lists carriers": a carrier's code is written in its own folder (its module) and the
// registry's one line, and everything else that needs the carriers reads them from the registry
// (carriers/README.md, "The anatomy of a real carrier"). A heuristic over the code of each production
// file outside carriers/: the string literals and property names that are exactly a registered
// carrier's code (or its folder's name, `dhl-express`). One such code in a file is a mention (UPS
// Track Alert's route names UPS); two or more are a list, a map or a switch over carriers, which
// should be derived from the registry instead. Comments and longer strings (`ups_ground`,
// `CARRIER_UPS_URL`) are not counted.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ALL_CARRIER_MODULES } from '../../carriers/index.js';
import { readText, trackedFiles } from './repository.js';

const CODES = new Set(ALL_CARRIER_MODULES.flatMap((m) => [m.definition.code, m.definition.code.replace(/_/g, '-')]));
const canonical = (name: string) => name.replace(/-/g, '_');

/** The registered carrier codes a file writes in code (not in comments), each once. */
function carrierCodesIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = new Set<string>();
  const note = (name: string) => {
    if (CODES.has(name)) found.add(canonical(name));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) note(node.text);
    else if (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node) || ts.isPropertySignature(node) || ts.isEnumMember(node)) {
      if (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) note(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...found].sort();
}

/** The production rooms (eslint.config.js's PRODUCTION_ROOMS) and the SDK's own code. */
function productionRooms(): string[] {
  const list = /const PRODUCTION_ROOMS = \[([^\]]+)\]/.exec(readText('eslint.config.js')!);
  if (!list) throw new Error('eslint.config.js has no PRODUCTION_ROOMS');
  return [...[...list[1].matchAll(/'([^']+)'/g)].map((m) => m[1]), 'sdk/src'];
}

describe('carrier codes', () => {
  it('the heuristic finds a list, a map and a switch, and ignores comments and longer names', () => {
    expect(carrierCodesIn('a.ts', "const X = ['ups', 'fedex'];")).toEqual(['fedex', 'ups']);
    expect(carrierCodesIn('b.ts', 'const rps = { acme: 1, "dhl-express": 2 };')).toEqual(['acme', 'dhl_express']);
    expect(carrierCodesIn('c.ts', "switch (c) { case 'usps': break; case `swiftpost`: break; }")).toEqual(['swiftpost', 'usps']);
    expect(carrierCodesIn('d.ts', "// ups, usps and fedex\nconst s = ['ups_ground', 'CARRIER_USPS_URL'];")).toEqual([]);
  });

  it('are listed only in carriers/: no production file elsewhere writes two or more of them', () => {
    expect(CODES.size).toBeGreaterThanOrEqual(6);
    const rooms = productionRooms().filter((room) => room !== 'carriers');
    const files = trackedFiles().filter((f) => /\.(ts|js|mjs)$/.test(f) && rooms.some((room) => f.startsWith(`${room}/`)));
    expect(files.length).toBeGreaterThan(100);
    const lists = files.flatMap((f) => {
      const codes = carrierCodesIn(f, readText(f)!);
      return codes.length >= 2 ? [`${f}: ${codes.join(', ')}`] : [];
    });
    expect(lists).toEqual([]);
  });
});
