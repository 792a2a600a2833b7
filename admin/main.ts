/**
 * The portal's jobs as a command line (contract: Administration). One JSON object on stdout per
 * command; a clear message on stderr and a non-zero exit on bad input.
 *   npm run --silent admin -- account create --name Acme --funding wallet
 * npm runs it through admin/launch.mjs (a cached bundle of this file and what it reaches); the image
 * runs its tsc build, node dist/admin/main.js.
 */
import { parseArgs } from 'node:util';
import type { AdminCommands } from './commands.js';

const USAGE = `usage: npm run --silent admin -- <command>
  account create --name <s> --funding wallet|credit_line|card [--currency GBP] [--credit-limit 500.00] [--vat-rate 20 (default for GBP; 0 for other currencies)]
  account enable-api <acc>
  account set <acc> --low-balance-threshold 20.00|none
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
  /** Each command: how many arguments it takes after its name (an extra one is a mistake), and its call. */
  const commands: Record<string, { args: number; run(admin: AdminCommands): Promise<unknown> }> = {
    'account create': {
      args: 0,
      run: (admin) =>
        admin.createAccount({ name: v.name ?? '', funding: v.funding ?? '', currency: v.currency, creditLimit: v['credit-limit'], vatRate: v['vat-rate'] }),
    },
    'account enable-api': { args: 1, run: (admin) => admin.enableApi(rest[0]) },
    'account set': {
      args: 1,
      run: (admin) => admin.setAccount(rest[0], { lowBalanceThreshold: v['low-balance-threshold'], creditLimit: v['credit-limit'] }),
    },
    'wallet topup': { args: 2, run: (admin) => admin.topUp(rest[0], rest[1]) },
    'key create': {
      args: 1,
      run: (admin) =>
        admin.createKey(rest[0], { mode: v.mode, scopes: v.scopes, expiresAt: v['expires-at'], allowIp: v['allow-ip'], rateLimit: v['rate-limit'] }),
    },
    'key revoke': { args: 1, run: (admin) => admin.revokeKey(rest[0]) },
    'user create': { args: 1, run: (admin) => admin.createUser(rest[0], { email: v.email, password: v.password, admin: v.admin }) },
  };
  const name = `${group ?? ''} ${verb ?? ''}`;
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`admin: unknown command "${name.trim()}"\n${USAGE}\n`);
    return 2;
  }
  const extra = rest.slice(command.args);
  if (extra.length) {
    process.stderr.write(`admin: unexpected argument ${JSON.stringify(extra[0])} to "${name}"\n${USAGE}\n`);
    return 2;
  }
  // The database, the configuration and the commands are loaded only now: a mistyped command or
  // --help answers at once, and what a command needs is all that is loaded (admin/session.ts).
  const { runAdminCommand } = await import('./session.js');
  return runAdminCommand(command.run);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`admin: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
