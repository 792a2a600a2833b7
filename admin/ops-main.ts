/**
 * Operators' commands against Temporal.
 *   npm run --silent ops -- stuck [--older-than 10m] [--account acc_…] [--json]
 * lists shipments whose purchase or void has been under way too long, why (the pending activity,
 * its attempts and last failure) and a Temporal UI link to each.
 *   npm run --silent ops -- reconcile [--older-than 10m]
 * marks failed the pending shipments whose purchase was never started (the API stopped first), and
 * starts a run that settles each shipment a closed run left pending or voiding (a Terminate).
 */
import { parseArgs } from 'node:util';

const USAGE = `usage: npm run --silent ops -- stuck [--older-than 10m] [--account acc_…] [--json]
       npm run --silent ops -- reconcile [--older-than 10m] [--account acc_…]

  stuck       shipments whose purchase (pending) or void (voiding) has been under way longer than
              --older-than: what each does now (its current details), its pending step with that
              step's attempt and last error, and a link into the Temporal UI. A void gives up after
              five minutes, so look for voids with a shorter age (--older-than 1m). Then the
              pickups whose carrier answer was lost that the sweep cannot settle (USPS's), each
              with what to ask the carrier (--json: their list as "pickups"), and the SCAN forms
              whose carrier answer was lost, which hold their shipments ("scan_forms").
  reconcile   what the sweep Schedule does every minute, now: fails the pending shipments whose
              workflow never started and frees their keys, and starts a run that settles each
              shipment whose latest run closed (terminated, failed) while it was pending or
              voiding, even where that run was itself one settling it. Prints JSON:
              {"data": [failed…], "settling": [shipments a settling run was started for…]}.

  --older-than  an age: 90s, 10m, 2h, 1d (default 10m)
  --account     only this account's shipments
  --json        one JSON object, {"data": [...]}, instead of text
`;

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
  // Temporal's client, the database and the rest are loaded only now: --help and a mistyped command
  // answer at once.
  const [{ connectDatabase, connectTemporal, createLogger, loadConfig }, { reconcile }, { findStuckShipments, formatStuck, parseAge }, { findStuckPickups, formatStuckPickups }, { findStuckScanForms, formatStuckScanForms }] = await Promise.all([
    import('../runtime/index.js'),
    import('./reconcile.js'),
    import('./stuck.js'),
    import('./stuck-pickups.js'),
    import('./stuck-forms.js'),
  ]);
  const olderThanMs = parseAge(values['older-than'] ?? '10m');
  if (olderThanMs === null) {
    process.stderr.write('ops: --older-than must look like 90s, 10m, 2h or 1d\n');
    return 2;
  }
  const config = loadConfig();
  // An operator's command: a Temporal or PostgreSQL that is down is said at once (exit status 1), not waited for in silence.
  const { client, connection } = await connectTemporal(config, config.temporalAddress ?? '127.0.0.1:7233', undefined, { wait: false });
  try {
    if (command === 'reconcile') {
      const database = await connectDatabase(config, createLogger(config, 'ops'), { wait: false });
      try {
        const { failed, settling } = await reconcile(database.db, client, { olderThanMs, accountId: values.account, queuePrefix: config.taskQueuePrefix });
        process.stdout.write(`${JSON.stringify({ data: failed, settling })}\n`);
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
    // Pickups whose carrier answer was lost and that the sweep cannot settle live in the database only.
    const database = await connectDatabase(config, createLogger(config, 'ops'), { wait: false });
    let pickups;
    let scanForms;
    try {
      pickups = await findStuckPickups(database.db, { olderThanMs, accountId: values.account });
      scanForms = await findStuckScanForms(database.db, { olderThanMs, accountId: values.account });
    } finally {
      await database.close();
      await database.stopEmbedded();
    }
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ data: stuck, pickups, scan_forms: scanForms })}\n`);
      return 0;
    }
    if (!stuck.length) process.stdout.write(`No shipment has been pending or voiding for more than ${values['older-than'] ?? '10m'}.\n`);
    process.stdout.write(formatStuck(stuck) + formatStuckPickups(pickups) + formatStuckScanForms(scanForms));
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
