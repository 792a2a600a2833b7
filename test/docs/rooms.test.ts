// The next engineer's map (docs/architecture.md, "The rooms") names every top-level folder of the
// repository, and the README's architecture paragraph the same ones. Reads the tracked files only.
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

describe('production files', () => {
  it('are at most 300 lines each (generated code aside)', () => {
    const rooms = productionRooms();
    expect(rooms.length).toBeGreaterThan(10);
    const code = trackedFiles().filter((f) => /\.(ts|js)$/.test(f) && rooms.some((room) => f.startsWith(`${room}/`)));
    expect(code.length).toBeGreaterThan(100);
    const long = code.map((f) => ({ file: f, lines: readText(f)!.split('\n').length - 1 })).filter((f) => f.lines > 300);
    expect(long).toEqual([]);
  });
});
