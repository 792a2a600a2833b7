// The repository's documentation stands alone: nothing a user clones points at a path outside it,
// and every relative link in the markdown leads to a file (and heading) that exists. Reads the
// tracked files only; needs no database, Temporal or simulator.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readText, ROOT, trackedFiles } from './repository.js';

const insideRoot = (absolute: string) => absolute === ROOT || absolute.startsWith(ROOT + path.sep);
const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** Markdown without fenced code blocks (kept as blank lines, so line numbers hold). */
const withoutFences = (md: string) => md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ''));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of withoutFences(md).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = match[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
function hasAnchor(absoluteMd: string, anchor: string): boolean {
  if (!anchorCache.has(absoluteMd)) anchorCache.set(absoluteMd, anchorsOf(readFileSync(absoluteMd, 'utf8')));
  return anchorCache.get(absoluteMd)!.has(decodeURIComponent(anchor).toLowerCase());
}

/**
 * Where a reference to `target` made in `file` leads, or why it leads nowhere: relative to the file's
 * folder, or (for a document named in prose or a comment) to the repository's root.
 */
function resolveIn(file: string, target: string, bases: 'file' | 'file-or-root'): { ok: true } | { ok: false; why: string } {
  const [pathPart, anchor] = target.split('#', 2);
  const fromFile = pathPart ? path.resolve(ROOT, path.dirname(file), pathPart) : path.join(ROOT, file);
  if (!insideRoot(fromFile)) return { ok: false, why: 'resolves outside the repository' };
  const fromRoot = bases === 'file-or-root' && pathPart ? path.resolve(ROOT, pathPart) : undefined;
  const found = [fromFile, fromRoot].find((c) => c !== undefined && insideRoot(c) && existsSync(c));
  if (!found) return { ok: false, why: 'no such file in the repository' };
  if (anchor && found.endsWith('.md') && !hasAnchor(found, anchor)) return { ok: false, why: `no heading #${anchor} in it` };
  return { ok: true };
}

const files = trackedFiles();
const texts = files.flatMap((file) => {
  const text = readText(file);
  return text === undefined ? [] : [{ file, text }];
});

describe('documentation that stands alone', () => {
  it('scans the repository', () => {
    expect(files).toContain('README.md');
    expect(texts.length).toBeGreaterThan(100);
  });

  it('names no path on a developer\'s machine and no sibling folder of the repository', () => {
    const problems: string[] = [];
    for (const { file, text } of texts) {
      // Absolute paths of a workstation or this build machine (a container's own paths, like /app, are fine).
      for (const m of text.matchAll(/(?<![\w.~-])\/(?:work|home\/[\w.-]+|Users\/[\w.-]+)\/[^\s'"`)\]>,;]*/g)) {
        problems.push(`${file}:${lineOf(text, m.index)}: absolute path ${m[0]}`);
      }
      // The internal documents that once lived beside the repository.
      for (const m of text.matchAll(/(?:\.\.\/)+shared\/[^\s'"`)\]>,;]*/g)) {
        problems.push(`${file}:${lineOf(text, m.index)}: ${m[0]} is outside the repository`);
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('has no relative path in the markdown that climbs out of the repository', () => {
    const problems: string[] = [];
    // In prose, `../…` is read from the document's own folder (code samples are written for other files: skipped).
    for (const { file, text } of texts.filter((t) => t.file.endsWith('.md'))) {
      const md = withoutFences(text);
      for (const m of md.matchAll(/(?<![\w.\/~-])((?:\.\.\/)+)([\w@.+-][\w@.+\/-]*)?/g)) {
        const target = path.resolve(ROOT, path.dirname(file), m[1] + (m[2] ?? ''));
        if (!insideRoot(target)) problems.push(`${file}:${lineOf(md, m.index)}: ${m[0]} resolves outside the repository`);
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('cites only documents that are in the repository (every `*.md` named in a file exists, headings included)', () => {
    const problems: string[] = [];
    for (const { file, text } of texts) {
      // A document named in prose or a comment: relative to the file, or to the repository's root.
      for (const m of text.matchAll(/(?<![\w.\/@~-])((?:\.{1,2}\/)*[\w.-]+(?:\/[\w.-]+)*\.md)(#[\w-]+)?(?![\w\/-])/g)) {
        const result = resolveIn(file, m[1] + (m[2] ?? ''), 'file-or-root');
        if (!result.ok) problems.push(`${file}:${lineOf(text, m.index)}: ${m[0]}: ${result.why}`);
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('resolves every relative markdown link to a file (and heading) in the repository', () => {
    const problems: string[] = [];
    let links = 0;
    for (const { file, text } of texts.filter((t) => t.file.endsWith('.md'))) {
      const md = withoutFences(text);
      for (const m of md.matchAll(/!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        links++;
        if (target.startsWith('/')) {
          problems.push(`${file}:${lineOf(md, m.index)}: ${target}: an absolute path, not a link inside the repository`);
          continue;
        }
        const result = resolveIn(file, target, 'file');
        if (!result.ok) problems.push(`${file}:${lineOf(md, m.index)}: ${target}: ${result.why}`);
      }
    }
    expect(links).toBeGreaterThan(0);
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
