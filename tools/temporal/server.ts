// The Temporal server binary, its sql tool and its PostgreSQL schema, for the cluster of
// `npm run fleet`: found, or built from the Go module proxy and cached, like the CLI (cli.ts).
import { cp, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  cacheRoot,
  findOnPath,
  formatDuration,
  isExecutableFile,
  run,
  tail,
  type Log,
} from './process-utils.js';
import { childEnv } from '../../config/index.js';
import { toolingSettings } from '../tooling-config.js';

/** The server release of the fleet and of docker-compose.yml (its go.mod has no replace directive). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server';
const PACKAGES = { server: `${SERVER_MODULE}/cmd/server`, sql: `${SERVER_MODULE}/cmd/tools/sql` } as const;

const defaultLog: Log = (msg) => process.stderr.write(`[temporal-server] ${msg}\n`);

export interface TemporalServerBinaries {
  /** `temporal-server`: `start --service <name>` runs one service. */
  server: string;
  /** `temporal-sql-tool`: creates and upgrades the databases (deploy/temporal/setup-postgres.sh). */
  sqlTool: string;
  /** The module's `schema/postgresql/v12` (holds `temporal/versioned` and `visibility/versioned`). */
  schemaDir: string;
}

/** Where the build is cached: `${XDG_CACHE_HOME ?? ~/.cache}/parcel-shipping/{bin,temporal-schema}`. */
export function cachedServerPaths(version = TEMPORAL_SERVER_VERSION): TemporalServerBinaries {
  return {
    server: path.join(cacheRoot(), 'bin', `temporal-server-${version}`),
    sqlTool: path.join(cacheRoot(), 'bin', `temporal-sql-tool-${version}`),
    schemaDir: path.join(cacheRoot(), 'temporal-schema', version, 'postgresql', 'v12'),
  };
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

async function usable(b: TemporalServerBinaries): Promise<string | undefined> {
  if (!(await isExecutableFile(b.server))) return `${b.server} is not an executable file`;
  if (!(await isExecutableFile(b.sqlTool))) return `${b.sqlTool} is not an executable file`;
  if (!(await isDir(path.join(b.schemaDir, 'temporal', 'versioned')))) return `${b.schemaDir} holds no temporal/versioned schema`;
  const res = await run(b.server, ['--version'], { timeoutMs: 60_000 });
  const want = TEMPORAL_SERVER_VERSION.replace(/^v/, '');
  if (res.code !== 0 || !`${res.stdout}${res.stderr}`.includes(want)) {
    return `\`${b.server} --version\` does not say ${want}: ${tail(`${res.stdout}${res.stderr}`, 3)}`;
  }
  return undefined;
}

/**
 * The server, the sql tool and the schema of TEMPORAL_SERVER_VERSION. Env TEMPORAL_SERVER_BIN,
 * TEMPORAL_SQL_TOOL and TEMPORAL_SCHEMA_DIR point at existing ones; otherwise the cache, filled by
 * `go install` of both commands (about two minutes with a warm Go module cache) and a copy of the
 * module's schema directory. Builds go to a directory of this process's own and are renamed into place.
 */
export async function ensureTemporalServer(log: Log = defaultLog): Promise<TemporalServerBinaries> {
  const settings = toolingSettings();
  const fromEnv = settings.temporalServerBin;
  if (fromEnv) {
    const b = {
      server: fromEnv,
      sqlTool: settings.temporalSqlTool ?? path.join(path.dirname(fromEnv), 'temporal-sql-tool'),
      schemaDir: settings.temporalSchemaDir ?? path.join(path.dirname(fromEnv), 'schema', 'postgresql', 'v12'),
    };
    const why = await usable(b);
    if (why) throw new Error(`TEMPORAL_SERVER_BIN=${fromEnv} (with TEMPORAL_SQL_TOOL, TEMPORAL_SCHEMA_DIR) is not usable: ${why}`);
    return b;
  }
  const cached = cachedServerPaths();
  if ((await usable(cached)) === undefined) return cached;

  const binDir = path.dirname(cached.server);
  const go = await findOnPath('go');
  if (!go) {
    throw new Error(
      `No Temporal server at ${cached.server} and no \`go\` on PATH to build it. Install Go (https://go.dev), or set TEMPORAL_SERVER_BIN, TEMPORAL_SQL_TOOL and TEMPORAL_SCHEMA_DIR.`,
    );
  }
  const env = childEnv({ GOFLAGS: [toolingSettings().goFlags, '-buildvcs=false'].filter(Boolean).join(' ') });
  const logFile = path.join(binDir, 'go-install-server.log');
  const started = Date.now();

  if (!(await isExecutableFile(cached.server)) || !(await isExecutableFile(cached.sqlTool)) || (await usable(cached))?.includes('--version')) {
    const buildDir = path.join(binDir, `.build-server-${process.pid}`);
    await rm(buildDir, { recursive: true, force: true });
    await mkdir(buildDir, { recursive: true });
    const args = ['install', `${PACKAGES.server}@${TEMPORAL_SERVER_VERSION}`, `${PACKAGES.sql}@${TEMPORAL_SERVER_VERSION}`];
    log(`building the Temporal server ${TEMPORAL_SERVER_VERSION} and its sql tool: go ${args.join(' ')} (minutes the first time; log: ${logFile})`);
    const heartbeat = setInterval(() => log(`still building the Temporal server (${formatDuration(Date.now() - started)})`), 30_000);
    let res;
    try {
      res = await run(go, args, { env: { ...env, GOBIN: buildDir }, timeoutMs: 45 * 60_000 });
    } finally {
      clearInterval(heartbeat);
    }
    const handle = await open(logFile, 'a');
    await handle.writeFile(`\n=== ${new Date().toISOString()} go ${args.join(' ')} -> exit ${res.code ?? res.signal}\n${res.stdout}${res.stderr}`);
    await handle.close();
    if (res.code !== 0) {
      await rm(buildDir, { recursive: true, force: true });
      throw new Error(`go install of the Temporal server failed (exit ${res.code ?? res.signal}):\n${tail(`${res.stdout}${res.stderr}`, 15)}`);
    }
    await rename(path.join(buildDir, 'server'), cached.server);
    await rename(path.join(buildDir, 'sql'), cached.sqlTool);
    await rm(buildDir, { recursive: true, force: true });
  }

  if (!(await isDir(path.join(cached.schemaDir, 'temporal', 'versioned')))) {
    // The module is in the Go module cache after the build; `go mod download` prints where.
    const res = await run(go, ['mod', 'download', '-json', `${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`], { env, timeoutMs: 10 * 60_000 });
    let dir: string | undefined;
    try {
      dir = (JSON.parse(res.stdout) as { Dir?: string }).Dir;
    } catch {
      dir = undefined;
    }
    if (!dir) throw new Error(`cannot locate the module ${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}: ${tail(`${res.stdout}${res.stderr}`, 10)}`);
    const staging = `${cached.schemaDir}.${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(path.dirname(staging), { recursive: true });
    await cp(path.join(dir, 'schema', 'postgresql', 'v12'), staging, { recursive: true });
    // Files in the module cache are read-only; ours must stay removable.
    await run('chmod', ['-R', 'u+w', staging]);
    await rm(cached.schemaDir, { recursive: true, force: true });
    await rename(staging, cached.schemaDir);
  }
  const why = await usable(cached);
  if (why) throw new Error(`the Temporal server build is not usable: ${why}`);
  log(`the Temporal server ${TEMPORAL_SERVER_VERSION} is ready in ${formatDuration(Date.now() - started)}: ${cached.server}`);
  return cached;
}

/** The Temporal UI server's module (`ui-server/v2`), built on a best-effort basis (docs/operators-guide.md#npm-run-fleet-the-production-topology-on-this-machine). */
export const TEMPORAL_UI_VERSION = 'v2.45.3';
const UI_PACKAGE = 'github.com/temporalio/ui-server/v2/cmd/server';

/** Path of a built Temporal UI server, or undefined (with the reason logged) when it cannot be built here. */
export async function ensureTemporalUi(log: Log = defaultLog): Promise<string | undefined> {
  const uiBin = toolingSettings().temporalUiServerBin;
  if (uiBin) return uiBin;
  const bin = path.join(cacheRoot(), 'bin', `temporal-ui-server-${TEMPORAL_UI_VERSION}`);
  if (await isExecutableFile(bin)) return bin;
  const failed = path.join(cacheRoot(), 'bin', `temporal-ui-server-${TEMPORAL_UI_VERSION}.failed`);
  if (await stat(failed).catch(() => undefined)) {
    log(`no Temporal UI: it did not build here before (${failed}; delete it to try again)`);
    return undefined;
  }
  const go = await findOnPath('go');
  if (!go) return undefined;
  const buildDir = path.join(cacheRoot(), 'bin', `.build-ui-${process.pid}`);
  await mkdir(buildDir, { recursive: true });
  log(`building the Temporal UI server ${TEMPORAL_UI_VERSION} (best effort)`);
  const res = await run(go, ['install', `${UI_PACKAGE}@${TEMPORAL_UI_VERSION}`], {
    env: childEnv({ GOBIN: buildDir, GOFLAGS: [toolingSettings().goFlags, '-buildvcs=false'].filter(Boolean).join(' ') }),
    timeoutMs: 15 * 60_000,
  });
  if (res.code === 0) {
    await rename(path.join(buildDir, 'server'), bin);
    await rm(buildDir, { recursive: true, force: true });
    return bin;
  }
  await rm(buildDir, { recursive: true, force: true });
  const handle = await open(failed, 'w');
  await handle.writeFile(`${new Date().toISOString()} go install ${UI_PACKAGE}@${TEMPORAL_UI_VERSION}\n${res.stdout}${res.stderr}`);
  await handle.close();
  log(`the Temporal UI server does not build here (${failed}): ${tail(`${res.stdout}${res.stderr}`, 3)}`);
  return undefined;
}
