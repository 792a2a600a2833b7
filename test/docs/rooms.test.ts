// The next engineer's map (docs/architecture.md, "The rooms") names every top-level folder of the
// repository, and the README's architecture paragraph the same ones. Reads the tracked files only.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
/** Folders that are not rooms of the code: CI's script and the documents themselves. */
const NOT_ROOMS = new Set(['.ci', 'docs']);

describe('the map of the rooms', () => {
  const folders = [
    ...new Set(
      execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
        .split('\0')
        .filter((f) => f.includes('/'))
        .map((f) => f.split('/')[0]),
    ),
  ].filter((f) => !NOT_ROOMS.has(f));

  it('has a row for every top-level folder in docs/architecture.md', () => {
    const architecture = read('docs/architecture.md');
    const table = architecture.slice(architecture.indexOf('\n## The rooms\n'), architecture.indexOf('\n## ', architecture.indexOf('\n## The rooms\n') + 1));
    const rows = new Set([...table.matchAll(/^\| `([^`/]+)\/` \|/gm)].map((m) => m[1]));
    expect(folders.length).toBeGreaterThan(10);
    for (const folder of folders) expect(rows, folder).toContain(folder);
    for (const row of rows) expect(folders, `${row}/ in the table exists`).toContain(row);
  });

  it("names every one in the README's architecture paragraph", () => {
    const readme = read('README.md');
    const paragraph = readme.slice(readme.indexOf('\n## Architecture in a paragraph\n'), readme.indexOf('\n## ', readme.indexOf('\n## Architecture in a paragraph\n') + 1));
    for (const folder of folders) expect(paragraph, folder).toContain(`\`${folder}/\``);
  });
});
