// The next engineer's map (docs/architecture.md, "The rooms") names every top-level folder of the
// repository, and the README's architecture paragraph the same ones. Reads the tracked files only.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readText, sectionOf, trackedFiles } from './repository.js';

/** Folders that are not rooms of the code: CI's script and the documents themselves. */
const NOT_ROOMS = new Set(['.ci', 'docs']);

describe('the map of the rooms', () => {
  const folders = [...new Set(trackedFiles().filter((f) => f.includes('/')).map((f) => f.split('/')[0]))].filter((f) => !NOT_ROOMS.has(f));

  it('has a row for every top-level folder in docs/architecture.md', () => {
    const table = sectionOf(readText('docs/architecture.md')!, 'The rooms');
    const rows = new Set([...table.matchAll(/^\| `([^`/]+)\/` \|/gm)].map((m) => m[1]));
    expect(folders.length).toBeGreaterThan(10);
    for (const folder of folders) expect(rows, folder).toContain(folder);
    for (const row of rows) expect(folders, `${row}/ in the table exists`).toContain(row);
  });

  it("names every one in the README's architecture paragraph", () => {
    const paragraph = sectionOf(readText('README.md')!, 'Architecture in a paragraph');
    for (const folder of folders) expect(paragraph, folder).toContain(`\`${folder}/\``);
  });
});

/** The production rooms, as eslint holds them to their doors (eslint.config.js), and the SDK's own code. */
function productionRooms(): string[] {
  const config = readText('eslint.config.js')!;
  const list = /const PRODUCTION_ROOMS = \[([^\]]+)\]/.exec(config);
  if (!list) throw new Error('eslint.config.js has no PRODUCTION_ROOMS');
  return [...[...list[1].matchAll(/'([^']+)'/g)].map((m) => m[1]), 'sdk/src'];
}

/** Lines of each function of a file, counting a nested function's lines as its own, not its parent's. */
function longFunctions(file: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const span = (node: ts.Node) => line(node.end) - line(node.getStart(source)) + 1;
  const isFunction = (node: ts.Node) => ts.isFunctionLike(node) && 'body' in node && node.body !== undefined;
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (isFunction(node)) {
      let own = span(node);
      const nested = (child: ts.Node): void => (isFunction(child) ? void (own -= span(child)) : ts.forEachChild(child, nested));
      ts.forEachChild(node, nested);
      const name = (node as ts.FunctionLikeDeclaration).name?.getText(source) ?? '(anonymous)';
      if (own > limit) found.push(`${file}:${line(node.getStart(source)) + 1} ${name}: ${own} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// Files split by meaning, not by a line count: the bounds only catch a file or a function that has
// grown past what one reading holds.
describe('production files', () => {
  const rooms = productionRooms();
  const code = trackedFiles().filter((f) => /\.(ts|js)$/.test(f) && rooms.some((room) => f.startsWith(`${room}/`)));
  const generated = (text: string) => /^\/\/ (@generated|Generated)|^\/\* (@generated|Generated)/.test(text);

  it('are at most 500 lines each (generated code aside)', () => {
    expect(rooms.length).toBeGreaterThan(10);
    expect(code.length).toBeGreaterThan(100);
    const long = code
      .map((f) => ({ file: f, text: readText(f)! }))
      .filter((f) => !generated(f.text))
      .map((f) => ({ file: f.file, lines: f.text.split('\n').length - 1 }))
      .filter((f) => f.lines > 500);
    expect(long).toEqual([]);
  });

  it('have no function over 80 lines of its own', () => {
    const long = code.filter((f) => f.endsWith('.ts')).flatMap((f) => {
      const text = readText(f)!;
      return generated(text) ? [] : longFunctions(f, text, 80);
    });
    expect(long).toEqual([]);
  });
});
