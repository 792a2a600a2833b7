// The Temporal CLI (its `server start-dev` is our development and test Temporal, dev-server.ts) on a
// machine that cannot reach Temporal's download site: find it, or build it with `go install` from the
// Go module proxy (docs/architecture.md#getting-temporal-on-a-machine-that-cannot-reach-its-download-site).
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot, findOnPath, formatDuration, isExecutableFile, run, sleep, tail, type Log } from './process-utils.js';
import { childEnv } from '../../config/index.js';
import { toolingSettings } from '../tooling-config.js';

/** The CLI release built by `go install`: the last whose go.mod has no replace directive. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
/** Tried when TEMPORAL_CLI_VERSION does not build (also free of replace directives). */
export const TEMPORAL_CLI_FALLBACK_VERSIONS: readonly string[] = ['v1.5.0'];
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
const VERSION_VAR = 'github.com/temporalio/cli/temporalcli.Version';

const defaultLog: Log = (msg) => process.stderr.write(`[temporal-cli] ${msg}\n`);

/** Where `go install` puts the CLI: `${XDG_CACHE_HOME ?? ~/.cache}/parcel-shipping/bin/temporal`. */
export function cachedCliPath(): string {
  return path.join(cacheRoot(), 'bin', 'temporal');
}

interface Probe {
  ok: boolean;
  version?: string;
  reason?: string;
}

/** Runs `<bin> --version`; a usable CLI says `temporal version X` with X >= 1 (or an unstamped 0.0.0-DEV build). */
async function probeCli(bin: string): Promise<Probe> {
  if (!(await isExecutableFile(bin))) return { ok: false, reason: `${bin} is not an executable file` };
  const res = await run(bin, ['--version'], { timeoutMs: 60_000 });
  const out = `${res.stdout}${res.stderr}`.trim();
  const m = /temporal version (\S+)/.exec(out);
  if (res.code !== 0 || !m) {
    return { ok: false, reason: `\`${bin} --version\` failed (exit ${res.code ?? res.signal}): ${tail(out, 5)}` };
  }
  const version = m[1] ?? '';
  const major = Number.parseInt(version.replace(/^v/, ''), 10);
  if (version.startsWith('0.0.0-DEV') || major >= 1) return { ok: true, version };
  return { ok: false, version, reason: `${bin} is temporal ${version}; 1.x is needed (its start-dev flags differ)` };
}

/** `go install` one version into a private GOBIN, then move the binary into the cache. */
async function goInstall(go: string, version: string, log: Log, failures: string[]): Promise<string | undefined> {
  const binDir = path.dirname(cachedCliPath());
  const buildDir = path.join(binDir, `.build-${process.pid}`);
  const logFile = path.join(binDir, 'go-install.log');
  const stamp = `-X ${VERSION_VAR}=${version.replace(/^v/, '')}`;
  const attempts: { label: string; ldflags: string }[] = [
    { label: '', ldflags: stamp },
    { label: ' with -checklinkname=0', ldflags: `-checklinkname=0 ${stamp}` },
  ];
  for (const [i, attempt] of attempts.entries()) {
    await rm(buildDir, { recursive: true, force: true });
    await mkdir(buildDir, { recursive: true });
    const args = ['install', `-ldflags=${attempt.ldflags}`, `${CLI_MODULE}@${version}`];
    log(`building the Temporal CLI ${version}${attempt.label}: go ${args.join(' ')} (several minutes the first time; log: ${logFile})`);
    const started = Date.now();
    const heartbeat = setInterval(() => log(`still building the Temporal CLI ${version} (${formatDuration(Date.now() - started)})`), 30_000);
    let res;
    try {
      res = await run(go, args, {
        env: childEnv({ GOBIN: buildDir, GOFLAGS: [toolingSettings().goFlags, '-buildvcs=false'].filter(Boolean).join(' ') }),
        timeoutMs: 45 * 60_000,
      });
    } finally {
      clearInterval(heartbeat);
    }
    const output = `${res.stdout}${res.stderr}`;
    const handle = await open(logFile, 'a');
    await handle.writeFile(`\n=== ${new Date().toISOString()} go ${args.join(' ')} -> exit ${res.code ?? res.signal}\n${output}`);
    await handle.close();
    const built = path.join(buildDir, 'temporal');
    if (res.code === 0) {
      const probe = await probeCli(built);
      if (probe.ok) {
        await rename(built, cachedCliPath());
        await rm(buildDir, { recursive: true, force: true });
        log(`built the Temporal CLI ${version} in ${formatDuration(Date.now() - started)}: ${cachedCliPath()}`);
        return cachedCliPath();
      }
      failures.push(`go install ${version}${attempt.label} built a binary that does not run: ${probe.reason}`);
      break;
    }
    // Only a go:linkname link error is worth the second attempt.
    if (i === 0 && /linkname/i.test(output)) {
      log(`go install ${version} hit a go:linkname link error; retrying with -ldflags=-checklinkname=0`);
      continue;
    }
    failures.push(`go install ${version}${attempt.label} failed (exit ${res.code ?? res.signal}):\n${tail(output, 15)}`);
    break;
  }
  await rm(buildDir, { recursive: true, force: true });
  return undefined;
}

/** Last resort: the SDK's own download of the CLI (works only where Temporal's download site is reachable). */
async function sdkDownload(log: Log, failures: string[]): Promise<string | undefined> {
  const downloadDir = path.join(cacheRoot(), 'sdk-download');
  await mkdir(downloadDir, { recursive: true });
  const existing = async (): Promise<string | undefined> => {
    for (const name of await readdir(downloadDir)) {
      if (name.startsWith('temporal-sdk-typescript-') && !name.endsWith('.downloading')) {
        const bin = path.join(downloadDir, name);
        if ((await probeCli(bin)).ok) return bin;
      }
    }
    return undefined;
  };
  const already = await existing();
  if (already) return already;
  log(`trying the SDK's own download of the Temporal CLI into ${downloadDir}`);
  let testing: typeof import('@temporalio/testing');
  try {
    testing = await import('@temporalio/testing');
  } catch (e) {
    failures.push(`SDK download: @temporalio/testing is not installed (${(e as Error).message})`);
    return undefined;
  }
  const attempt = (async () => {
    const env = await testing.TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'cached-download', downloadDir }, log: { format: 'json', level: 'error' } },
    });
    await env.teardown();
  })();
  const timeout = sleep(180_000).then(() => {
    throw new Error('no answer within 180 s');
  });
  try {
    await Promise.race([attempt, timeout]);
  } catch (e) {
    attempt.catch(() => undefined);
    failures.push(`SDK download failed: ${(e as Error).message}`);
    return undefined;
  }
  const bin = await existing();
  if (!bin) failures.push(`SDK download: no working temporal-sdk-typescript-* binary in ${downloadDir} afterwards`);
  return bin;
}

/**
 * Path of a working `temporal` CLI (1.x). Looks, in order, at: env TEMPORAL_CLI; `temporal` on PATH;
 * the cache `${XDG_CACHE_HOME ?? ~/.cache}/parcel-shipping/bin/temporal`; `go install` of
 * TEMPORAL_CLI_VERSION into that cache (retried with `-checklinkname=0` on a go:linkname link error,
 * then the fallback versions); and last the SDK's own download. Throws, saying what each step found,
 * when none gives a CLI. Each build goes to a directory of its own and is renamed into the cache when
 * it runs, so a concurrent caller (two first runs at once) builds twice at worst, never half a binary.
 */
export async function ensureTemporalCli(log: Log = defaultLog): Promise<string> {
  const failures: string[] = [];

  const fromEnv = toolingSettings().temporalCli;
  if (fromEnv !== undefined && fromEnv !== '') {
    const probe = await probeCli(fromEnv);
    if (probe.ok) return fromEnv;
    throw new Error(`TEMPORAL_CLI=${fromEnv} is not a working Temporal CLI: ${probe.reason}`);
  }

  const onPath = await findOnPath('temporal');
  if (onPath) {
    const probe = await probeCli(onPath);
    if (probe.ok) return onPath;
    failures.push(`PATH: ${probe.reason}`);
    log(`ignoring ${onPath}: ${probe.reason}`);
  }

  const cached = cachedCliPath();
  const cachedProbe = await probeCli(cached);
  if (cachedProbe.ok) return cached;
  if (cachedProbe.reason && !cachedProbe.reason.includes('not an executable file')) {
    log(`the cached CLI does not work (${cachedProbe.reason}); rebuilding it`);
    await rm(cached, { force: true });
  }

  const go = await findOnPath('go');
  if (!go) failures.push('go install: no `go` on PATH');
  for (const version of go ? [TEMPORAL_CLI_VERSION, ...TEMPORAL_CLI_FALLBACK_VERSIONS] : []) {
    const built = await goInstall(go as string, version, log, failures);
    if (built) return built;
  }

  const downloaded = await sdkDownload(log, failures);
  if (downloaded) return downloaded;

  throw new Error(
    [
      'No Temporal CLI could be had. Tried:',
      '- env TEMPORAL_CLI: not set',
      ...(onPath ? [] : ['- PATH: no temporal']),
      `- cache: nothing usable at ${cached}`,
      ...failures.map((f) => `- ${f}`),
      `Install Go (https://go.dev) and run \`GOBIN=${path.dirname(cached)} go install ${CLI_MODULE}@${TEMPORAL_CLI_VERSION}\`, or point TEMPORAL_CLI at a temporal 1.x binary.`,
    ].join('\n'),
  );
}

