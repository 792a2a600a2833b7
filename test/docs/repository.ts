// The repository as the documentation checks read it: its root, its tracked files (hand-written
// ones: no recorded histories, generated code or lock files) and their text. No stack needed.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Files not written by hand: recorded histories (their stack traces name the recording machine's paths), generated code, lock files. */
const GENERATED = [/^package-lock\.json$/, /^carriers\/[^/]+\/schemas\//, /(^|\/)node_modules\//, /^test\/replay\/histories\//, /^sdk\/src\/generated\//, /^db\/migrations\/meta\//];

/** Every tracked (or new, not ignored) hand-written file, relative to the root. */
export function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return out
    .split('\0')
    .filter((f) => f && !GENERATED.some((re) => re.test(f)))
    .filter((f) => existsSync(path.join(ROOT, f)) && statSync(path.join(ROOT, f)).isFile());
}

/** A file's text, or undefined for a binary one. */
export function readText(file: string): string | undefined {
  const bytes = readFileSync(path.join(ROOT, file));
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

/** A markdown file's `## heading` section, up to the next `## ` heading. */
export function sectionOf(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}
