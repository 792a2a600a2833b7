/**
 * Operators' commands against Temporal.
 *   npm run --silent ops -- stuck [--older-than 10m] [--account acc_…] [--json]
 * lists shipments whose purchase or void has been under way too long, why (the pending activity,
 * its attempts and last failure) and a Temporal UI link to each.
 */
import { parseArgs } from 'node:util';
import { connectTemporal, loadConfig } from './runtime.js';
import { findStuckShipments, parseAge } from './ops/stuck.js';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: { 'older-than': { type: 'string' }, account: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals[0] !== 'stuck') {
    process.stderr.write('usage: npm run --silent ops -- stuck [--older-than 10m] [--account acc_…] [--json]\n');
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
