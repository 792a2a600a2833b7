/** `npm run chaos -- [--purchases N] [--concurrency C] [--seed S] [--duration SECONDS] [--no-build]` */
export interface ChaosOptions {
  /** How many purchases the clients make (each with its own Idempotency-Key). */
  purchases: number;
  /** Items of the batch phase, split over a GBP and a USD batch (0: no batch phase). */
  batchItems: number;
  /** How many purchases are under way at once at most. */
  concurrency: number;
  /** Seeds the fault schedule, the accounts and services chosen, voids and webhook failures. */
  seed: number;
  /** How long faults go on, in ms; purchases are spread over it. */
  durationMs: number;
  /** How long to wait, once faults stop, for nothing to be pending or voiding and every event delivered. */
  settleMs: number;
  /** Rebuild dist/ when a source file is newer than it (default); false uses dist/ as it is. */
  build: boolean;
  /** Lines of progress; the table is returned, not logged. */
  log(line: string): void;
}

export const DEFAULT_OPTIONS: Omit<ChaosOptions, 'log'> = {
  purchases: 300,
  batchItems: 300,
  concurrency: 12,
  seed: 1,
  durationMs: 180_000,
  settleMs: 360_000,
  build: true,
};

export const CHAOS_USAGE = `usage: npm run chaos -- [--purchases N] [--batch-items B] [--concurrency C] [--seed S] [--duration SECONDS] [--settle SECONDS] [--no-build]
  defaults: --purchases ${DEFAULT_OPTIONS.purchases} --batch-items ${DEFAULT_OPTIONS.batchItems} --concurrency ${DEFAULT_OPTIONS.concurrency} --seed ${DEFAULT_OPTIONS.seed} --duration ${DEFAULT_OPTIONS.durationMs / 1000} --settle ${DEFAULT_OPTIONS.settleMs / 1000}`;

/** The options, or 'help' for --help / -h. */
export function parseChaosArgs(argv: readonly string[]): Omit<ChaosOptions, 'log'> | 'help' {
  const o = { ...DEFAULT_OPTIONS };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${arg} needs a positive number`);
      return v;
    };
    switch (arg) {
      case '--purchases':
      case '-n':
        o.purchases = Math.floor(value());
        break;
      case '--batch-items': {
        const v = Number(argv[++i]);
        if (!Number.isInteger(v) || v < 0 || v > 2000) throw new Error(`${arg} needs a whole number from 0 to 2000`);
        o.batchItems = v;
        break;
      }
      case '--concurrency':
      case '-c':
        o.concurrency = Math.floor(value());
        break;
      case '--seed':
        o.seed = Math.floor(value());
        break;
      case '--duration':
        o.durationMs = value() * 1000;
        break;
      case '--settle':
        o.settleMs = value() * 1000;
        break;
      case '--no-build':
        o.build = false;
        break;
      case '--help':
      case '-h':
        return 'help';
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  return o;
}
