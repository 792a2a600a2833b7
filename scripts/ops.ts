/**
 * Operators' commands against Temporal.
 *   npm run --silent ops -- stuck [--older-than 10m] [--account acc_…] [--json]
 * lists shipments whose purchase or void has been under way too long, why (the pending activity,
 * its attempts and last failure) and a Temporal UI link to each.
 *   npm run --silent ops -- reconcile [--older-than 10m]
 * marks failed the pending shipments whose purchase was never started (the API stopped first).
 */
import { parseArgs } from 'node:util';
import { connectDatabase, connectTemporal, createLogger, loadConfig } from './runtime.js';
import { reconcileOrphans } from './ops/reconcile.js';
import { findStuckShipments, parseAge } from './ops/stuck.js';

const USAGE =
  'usage: npm run --silent ops -- stuck [--older-than 10m] [--account acc_…] [--json]\n' +
  '       npm run --silent ops -- reconcile [--older-than 10m] [--account acc_…]\n';

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      options: { 'older-than': { type: 'string' }, account: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    });
  } catch (err) {
    process.stderr.write(`ops: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command !== 'stuck' && command !== 'reconcile') {
    process.stderr.write(USAGE);
    return 2;
  }
  const olderThanMs = parseAge(values['older-than'] ?? '10m');
  if (olderThanMs === null) {
    process.stderr.write('ops: --older-than must look like 90s, 10m, 2h or 1d\n');
    return 2;
  }
  const config = loadConfig();
  const { client, connection } = await connectTemporal(config, config.temporalAddress ?? '127.0.0.1:7233');
  try {
    if (command === 'reconcile') {
      const database = await connectDatabase(config, createLogger(config, 'ops'));
      try {
        const failed = await reconcileOrphans(database.db, client, { olderThanMs, accountId: values.account });
        process.stdout.write(`${JSON.stringify({ data: failed })}\n`);
        return 0;
      } finally {
        await database.close();
        await database.stopEmbedded();
      }
    }
    const stuck = await findStuckShipments(client, {
      olderThanMs,
      uiUrl: config.temporalUiUrl,
      namespace: config.temporalNamespace,
      accountId: values.account,
    });
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ data: stuck })}\n`);
      return 0;
    }
    if (!stuck.length) {
      process.stdout.write(`No shipment has been pending or voiding for more than ${values['older-than'] ?? '10m'}.\n`);
      return 0;
    }
    for (const s of stuck) {
      process.stdout.write(`${s.shipment_id}  ${s.status} since ${s.waiting_since}  carrier ${s.carrier ?? '-'}  account ${s.account_id}\n`);
      if (s.details) process.stdout.write(`  now: ${s.details}\n`);
      for (const a of s.pending_activities) {
        process.stdout.write(`  waiting on ${a.activity} (${a.task_queue ?? '?'}), attempt ${a.attempt}, last error: ${a.last_failure ?? 'none'}\n`);
      }
      process.stdout.write(`  ${s.ui_url}\n`);
    }
    return 0;
  } finally {
    await connection.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`ops: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
