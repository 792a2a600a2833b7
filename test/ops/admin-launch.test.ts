import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// admin/launch.mjs (what `npm run admin` and `npm run ops` start) runs a cached bundle of the
// sources. Here it runs in a scratch checkout of its own: an admin/main.ts that prints what
// admin/value.ts holds, so that the cache of the real checkout is never touched.
let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'admin-launch-')));
  mkdirSync(path.join(dir, 'admin'));
  mkdirSync(path.join(dir, 'node_modules'));
  copyFileSync(path.join(ROOT, 'admin/launch.mjs'), path.join(dir, 'admin/launch.mjs'));
  symlinkSync(path.join(ROOT, 'node_modules/tsx'), path.join(dir, 'node_modules/tsx'));
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(dir, 'tsconfig.json'), '{}\n');
  source('main.ts', [
    "import { value } from './value.js';",
    'const here: string = new URL(".", import.meta.url).pathname;',
    'process.stdout.write(`${JSON.stringify({ value, here, args: process.argv.slice(2) })}\\n`);',
  ]);
  source('value.ts', ['export const value: number = 1;']);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function source(name: string, lines: string[]) {
  writeFileSync(path.join(dir, 'admin', name), `${lines.join('\n')}\n`);
}

function launch(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(dir, 'admin/launch.mjs'), 'main', ...args], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const bundleDir = () => (JSON.parse(readFileSync(path.join(dir, 'node_modules/.cache/admin/main.json'), 'utf8')) as { dir: string }).dir;

describe('admin/launch.mjs', () => {
  it('builds on the first call, then runs the same bundle while no source changes', async () => {
    const first = await launch('account', '--name', 'x');
    expect(first.code, first.stderr).toBe(0);
    // The command's own arguments, and import.meta.url the source's own URL, as under tsx.
    expect(JSON.parse(first.stdout)).toEqual({ value: 1, here: `${dir}/admin/`, args: ['account', '--name', 'x'] });
    const built = bundleDir();
    const again = await launch();
    expect(JSON.parse(again.stdout)).toMatchObject({ value: 1 });
    expect(bundleDir()).toBe(built);
  });

  it('runs a changed source at once, even one changed to text of the same size', async () => {
    const before = bundleDir();
    source('value.ts', ['export const value: number = 2;']);
    const changed = await launch();
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ value: 2 });
    expect(bundleDir()).not.toBe(before);
  });

  it('follows a new import into a new file', async () => {
    source('extra.ts', ['export const extra: number = 40;']);
    source('value.ts', ["import { extra } from './extra.js';", 'export const value: number = extra + 2;']);
    expect(JSON.parse((await launch()).stdout)).toMatchObject({ value: 42 });
  });

  it('refuses to run a source that does not compile, saying why, and runs it once fixed', async () => {
    source('value.ts', ['export const value: number = ;']);
    const broken = await launch();
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toContain('value.ts');
    source('value.ts', ['export const value: number = 3;']);
    expect(JSON.parse((await launch()).stdout)).toMatchObject({ value: 3 });
  });
});
