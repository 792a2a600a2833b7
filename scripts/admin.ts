/**
 * The portal's jobs as a command line (contract: Administration). One JSON object on stdout per
 * command; a clear message on stderr and a non-zero exit on bad input.
 *   npm run --silent admin -- account create --name Acme --funding wallet
 */
import { parseArgs } from 'node:util';
import { ensureEmbeddedPostgres, migrateDatabase, openDatabase } from '../db/index.js';
import { CARRIER_MODULES } from '../carriers/index.js';
import { loadConfig } from '../domain/index.js';
import { AdminError, adminCommands } from './admin/commands.js';

const USAGE = `usage: npm run --silent admin -- <command>
  account create --name <s> --funding wallet|credit_line|card [--currency GBP] [--credit-limit 500.00] [--vat-rate 20]
  account enable-api <acc>
  account set <acc> --low-balance-threshold 20.00
  wallet topup <acc> <amount>
  key create <acc> --mode test|live [--scopes a,b|all] [--expires-at ISO] [--allow-ip CIDR,…] [--rate-limit <n>/<seconds>]
  key revoke <key_id>
  user create <acc> --email <e> --password <p> [--admin]`;

const OPTIONS = {
  name: { type: 'string' },
  funding: { type: 'string' },
  currency: { type: 'string' },
  'credit-limit': { type: 'string' },
  'vat-rate': { type: 'string' },
  'low-balance-threshold': { type: 'string' },
  mode: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  'allow-ip': { type: 'string' },
  'rate-limit': { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  admin: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** How many arguments each command takes after its name (an extra one is a mistake, not ignored). */
const POSITIONALS: Record<string, number> = {
  'account create': 0,
  'account enable-api': 1,
  'account set': 1,
  'wallet topup': 2,
  'key create': 1,
  'key revoke': 1,
  'user create': 1,
};

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`admin: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [group, verb, ...rest] = parsed.positionals;
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const command = `${group ?? ''} ${verb ?? ''}`;
  if (!(command in POSITIONALS)) {
    process.stderr.write(`admin: unknown command "${command.trim()}"\n${USAGE}\n`);
    return 2;
  }
  const extra = rest.slice(POSITIONALS[command]);
  if (extra.length) {
    process.stderr.write(`admin: unexpected argument ${JSON.stringify(extra[0])} to "${command}"\n${USAGE}\n`);
    return 2;
  }
  let config;
  try {
    config = loadConfig({ carriers: CARRIER_MODULES.map((m) => m.definition.code) });
  } catch (err) {
    process.stderr.write(`admin: configuration error: ${(err as Error).message}\n`);
    return 2;
  }
  const embedded = config.databaseUrl ? null : await ensureEmbeddedPostgres(config.dataDir);
  const database = openDatabase(config.databaseUrl ?? embedded!.url, { max: 2 });
  try {
    await migrateDatabase(database);
    const admin = adminCommands(database.db);
    let result: unknown;
    switch (command) {
      case 'account create':
        result = await admin.createAccount({
          name: v.name ?? '',
          funding: v.funding ?? '',
          currency: v.currency,
          creditLimit: v['credit-limit'],
          vatRate: v['vat-rate'],
        });
        break;
      case 'account enable-api':
        result = await admin.enableApi(rest[0]);
        break;
      case 'account set':
        result = await admin.setAccount(rest[0], { lowBalanceThreshold: v['low-balance-threshold'], creditLimit: v['credit-limit'] });
        break;
      case 'wallet topup':
        result = await admin.topUp(rest[0], rest[1]);
        break;
      case 'key create':
        result = await admin.createKey(rest[0], {
          mode: v.mode,
          scopes: v.scopes,
          expiresAt: v['expires-at'],
          allowIp: v['allow-ip'],
          rateLimit: v['rate-limit'],
        });
        break;
      case 'key revoke':
        result = await admin.revokeKey(rest[0]);
        break;
      case 'user create':
        result = await admin.createUser(rest[0], { email: v.email, password: v.password, admin: v.admin });
        break;
      default:
        process.stderr.write(`admin: unknown command "${command.trim()}"\n${USAGE}\n`);
        return 2;
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof AdminError) {
      process.stderr.write(`admin: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await database.close();
    await embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`admin: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
