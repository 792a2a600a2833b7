// The patch ledger (workflows/patches.ts) names every patch a workflow uses: each `patched(` and
// `deprecatePatch(` call in workflows/ is found in the source text and its id looked up there.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PATCHES } from '../../workflows/patches.js';

const WORKFLOWS = fileURLToPath(new URL('../../workflows', import.meta.url));
const PATCH_CALLS = new Set(['patched', 'deprecatePatch']);

interface PatchUse {
  where: string;
  call: string;
  /** The id, or undefined when the argument is neither a string literal nor a string constant of the file. */
  id: string | undefined;
}

/** The patch calls in one file's text, each with its id: a string literal, or a `const` of the file set to one. */
function patchUses(file: string, text: string): PatchUse[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const constants = new Map<string, string>();
  const calls: ts.CallExpression[] = [];
  const problems: PatchUse[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.isStringLiteralLike(node.initializer)) {
      if (node.parent.flags & ts.NodeFlags.Const) constants.set(node.name.text, node.initializer.text);
    }
    // A renamed import would hide its calls from this check.
    if (ts.isImportSpecifier(node) && PATCH_CALLS.has((node.propertyName ?? node.name).text) && node.propertyName) {
      problems.push({ where: `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`, call: `import ${node.getText()}`, id: undefined });
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
      if (name && PATCH_CALLS.has(name)) calls.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [
    ...problems,
    ...calls.map((call) => {
      const [arg] = call.arguments;
      const id = arg && ts.isStringLiteralLike(arg) ? arg.text : arg && ts.isIdentifier(arg) ? constants.get(arg.text) : undefined;
      return { where: `${file}:${source.getLineAndCharacterOfPosition(call.getStart()).line + 1}`, call: call.getText(), id };
    }),
  ];
}

function sourcesUnder(dir: string): Array<{ file: string; text: string }> {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => ({ file: path.join('workflows', f), text: readFileSync(path.join(dir, f), 'utf8') }));
}

const uses = sourcesUnder(WORKFLOWS).flatMap(({ file, text }) => patchUses(file, text));
const ledger = new Set(PATCHES.map((p) => p.id));

describe('the patch ledger (workflows/patches.ts)', () => {
  it('finds patch calls in source text, with literal and constant ids', () => {
    const sample = [
      "import { deprecatePatch, patched } from '@temporalio/workflow';",
      "const PATCH_X = 'x-id';",
      '// patched(in-a-comment) is no call',
      "if (patched('literal-id')) doIt();",
      'deprecatePatch(PATCH_X);',
      'if (wf.patched(unknownName)) doIt();',
    ].join('\n');
    expect(patchUses('sample.ts', sample).map((u) => u.id)).toEqual(['literal-id', 'x-id', undefined]);
    expect(patchUses('sample.ts', "import { patched as p } from '@temporalio/workflow';")).toHaveLength(1);
  });

  it('names every id a workflow passes to patched() or deprecatePatch()', () => {
    const unknown = uses.filter((u) => u.id === undefined || !ledger.has(u.id)).map((u) => `${u.where}: ${u.call}`);
    expect(unknown, 'patch calls whose id is not a string in the ledger').toEqual([]);
  });

  it('has no entry that no workflow uses any more (removed with its last call)', () => {
    const used = new Set(uses.map((u) => u.id));
    expect(PATCHES.filter((p) => !used.has(p.id)).map((p) => p.id)).toEqual([]);
  });

  it('has well-formed entries: one per id, an ISO day, a reason and when it may be deprecated', () => {
    expect(ledger.size).toBe(PATCHES.length);
    for (const entry of PATCHES) {
      expect(entry.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(entry.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(new Date(`${entry.date}T00:00:00Z`).toISOString().slice(0, 10)).toBe(entry.date);
      expect(entry.why.trim()).not.toBe('');
      expect(entry.deprecateWhen.trim()).not.toBe('');
    }
  });
});
