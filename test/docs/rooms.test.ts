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
