// `npm run carrier-schemas [-- <carrier documents folder>] [--check]`: writes carriers/<carrier>/schemas/
// from the carriers' published documents (tools/carrier-schemas/README.md). With --check it writes
// nothing and fails when a committed file differs from what the documents give.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { carrierSpecs } from './carriers.js';
import { generateCarrier } from './generate.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The documents' folder: the argument, else CARRIER_SPECS_DIR, else `shared/carrier-specs` in the
 * folder that holds this repository (where the project keeps the carriers' documents; a clone
 * elsewhere passes the folder explicitly).
 */
function specsDir(args: readonly string[]): string {
  const given = args.find((a) => !a.startsWith('--')) ?? process.env.CARRIER_SPECS_DIR;
  const dir = given ? path.resolve(given) : path.join(path.dirname(ROOT), 'shared', 'carrier-specs');
  if (!existsSync(dir)) throw new Error(`no carrier documents at ${dir}: pass their folder as the argument or in CARRIER_SPECS_DIR`);
  return dir;
}

async function main(args: readonly string[]): Promise<number> {
  const check = args.includes('--check');
  const dir = specsDir(args);
  const differing: string[] = [];
  for (const carrier of carrierSpecs()) {
    const files = await generateCarrier(dir, carrier);
    const folder = path.join(ROOT, 'carriers', carrier.carrier, 'schemas');
    // A file the generator no longer writes (an operation dropped) goes too.
    const stale = existsSync(folder) ? readdirSync(folder).filter((f) => !files.has(`carriers/${carrier.carrier}/schemas/${f}`)) : [];
    for (const [file, content] of files) {
      const target = path.join(ROOT, file);
      const same = existsSync(target) && readFileSync(target, 'utf8') === content;
      if (same) continue;
      differing.push(file);
      if (!check) {
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, content);
      }
    }
    for (const file of stale) {
      differing.push(`carriers/${carrier.carrier}/schemas/${file} (not generated)`);
      if (!check) rmSync(path.join(folder, file));
    }
  }
  const verb = check ? 'differ from the documents' : 'written';
  console.log(differing.length === 0 ? 'carrier schemas: every file matches the documents' : `carrier schemas ${verb}:\n  ${differing.join('\n  ')}`);
  return check && differing.length > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
