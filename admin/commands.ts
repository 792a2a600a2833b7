import { randomBytes } from 'node:crypto';
import {
  findAccount,
  findUserByEmail,
  generateApiKey,
  hashPassword,
  insertUser,
  requestApiAccess,
  hashApiKey,
  insertAccount,
  insertApiKey,
  revokeApiKey,
  topUp,
  updateAccount,
  type Db,
} from '../db/index.js';
import {
  balanceToJson,
  FUNDING_SOURCES,
  isScope,
  isValidCidr,
  makeId,
  parseAmount,
  parseIsoInstant,
  SCOPES,
  type FundingSource,
} from '../domain/index.js';

/** `svc_test_` and four characters of the secret (24 bits): tells keys apart, reveals nothing useful. */
export const keyPrefix = (key: string) => key.slice(0, 'svc_test_'.length + 4);

/** The largest value of a PostgreSQL `integer` column. */
const MAX_INT32 = 2_147_483_647;

/** A bad command: its message is shown to the operator and the command exits non-zero. */
export class AdminError extends Error {}

/** The currencies in use (ISO 4217), as the runtime's ICU data knows them. */
const ISO_4217 = new Set(Intl.supportedValuesOf('currency'));
/**
 * ISO 4217 currencies whose minor unit is not a hundredth (0 or 3 decimals; XDR has none). ICU formats
 * some two-place currencies (HUF, IDR…) with no decimals, so its digits are not the list. Amounts are hundredths
 * in the code and two places at the edges (contract: Money), and the card processor takes minor
 * units: a JPY price shown as 5.94 would be charged as ¥594.
 */
const NOT_HUNDREDTHS = new Set(
  'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF BHD IQD JOD KWD LYD OMR TND XDR'.split(' '),
);
const newId = (prefix: 'acc' | 'key' | 'usr') => makeId(prefix, Date.now(), randomBytes(16));

function amount(text: string | undefined, what: string): number {
  const value = text === undefined ? null : parseAmount(text);
  if (value === null) throw new AdminError(`${what} must be an amount like 20.00, got "${text ?? ''}"`);
  return value;
}

async function account(db: Db, id: string | undefined) {
  if (!id) throw new AdminError('an account id (acc_…) is required');
  const found = await findAccount(db, id);
  if (!found) throw new AdminError(`no account ${id}`);
  return found;
}

export interface CreateAccountOptions {
  name: string;
  funding: string;
  currency?: string;
  creditLimit?: string;
  vatRate?: string;
}

/** The portal's jobs (contract: Administration), shared by the admin command and the tests. */
export function adminCommands(db: Db, now: () => Date = () => new Date()) {
  return {
    async createAccount(o: CreateAccountOptions) {
      if (!o.name?.trim()) throw new AdminError('--name is required');
      if (!(FUNDING_SOURCES as readonly string[]).includes(o.funding)) {
        throw new AdminError(`--funding must be one of ${FUNDING_SOURCES.join(', ')}`);
      }
      const currency = (o.currency ?? 'GBP').toUpperCase();
      // A known code, not the shape alone: `XYZ` has the shape and no currency (contract: Money, ISO 4217).
      if (!ISO_4217.has(currency)) throw new AdminError(`--currency must be an ISO 4217 code such as GBP, got "${o.currency}"`);
      if (NOT_HUNDREDTHS.has(currency)) throw new AdminError(`--currency must have two decimal places (amounts are in hundredths), got ${currency}`);
      // UK VAT is 20 %; an account billed in another currency is outside it unless a rate is given.
      const vat = o.vatRate ?? (currency === 'GBP' ? '20' : '0');
      if (!/^\d{1,2}(\.\d{1,2})?$/.test(vat)) throw new AdminError('--vat-rate must be a percentage such as 20');
      if (o.creditLimit !== undefined && o.funding !== 'credit_line') {
        throw new AdminError('--credit-limit applies only to --funding credit_line');
      }
      // Not set is null (contract: Balance), not 0.00: a credit line without a limit has no credit yet.
      const creditLimit = o.creditLimit !== undefined ? amount(o.creditLimit, '--credit-limit') : null;
      const row = await insertAccount(db, {
        id: newId('acc'),
        name: o.name.trim(),
        fundingSource: o.funding as FundingSource,
        currency,
        vatRateBp: Math.round(Number(vat) * 100),
        creditLimit,
      });
      return { id: row.id };
    },

    async enableApi(accountId: string | undefined) {
      const a = await account(db, accountId);
      // Enabling twice keeps the first time: the review time shown is the real one.
      await updateAccount(db, a.id, { apiEnabled: true, apiEnabledAt: a.apiEnabledAt ?? now() });
      return { id: a.id, api_enabled: true };
    },

    /** The account holder asks for API access (spec §1); an administrator enables it after review. */
    async requestApiAccess(accountId: string | undefined) {
      const a = await account(db, accountId);
      // No row updated means enabled already (by an operator, or from a page left open): nothing to review.
      const updated = (await requestApiAccess(db, a.id, now())) ?? { ...a, apiEnabled: true };
      return {
        id: a.id,
        api_enabled: updated.apiEnabled,
        api_access_requested_at: updated.apiAccessRequestedAt?.toISOString() ?? null,
      };
    },

    async setAccount(accountId: string | undefined, o: { lowBalanceThreshold?: string; creditLimit?: string }) {
      const a = await account(db, accountId);
      if (o.lowBalanceThreshold === undefined && o.creditLimit === undefined) {
        throw new AdminError('nothing to set: give --low-balance-threshold or --credit-limit');
      }
      const changes: { lowBalanceThreshold?: number | null; creditLimit?: number } = {};
      if (o.lowBalanceThreshold !== undefined) {
        // `none` (or nothing, from the portal's form) clears it: no more wallet.low_balance events.
        const cleared = ['', 'none'].includes(o.lowBalanceThreshold.trim().toLowerCase());
        // A card account has no balance to fall (its `available` is null): such a threshold would never fire.
        if (!cleared && a.fundingSource === 'card') throw new AdminError('--low-balance-threshold applies only to wallet and credit_line accounts');
        changes.lowBalanceThreshold = cleared ? null : amount(o.lowBalanceThreshold, '--low-balance-threshold');
      }
      if (o.creditLimit !== undefined) {
        if (a.fundingSource !== 'credit_line') throw new AdminError('--credit-limit applies only to credit_line accounts');
        changes.creditLimit = amount(o.creditLimit, '--credit-limit');
      }
      const view = balanceToJson((await updateAccount(db, a.id, changes))!, true);
      return { id: a.id, low_balance_threshold: view.low_balance_threshold, credit_limit: view.credit_limit };
    },

    async topUp(accountId: string | undefined, value: string | undefined) {
      const a = await account(db, accountId);
      if (a.fundingSource !== 'wallet') throw new AdminError('only wallet accounts can be topped up');
      const minor = amount(value, 'the amount');
      if (minor <= 0) throw new AdminError('the amount must be above zero');
      return balanceToJson(await topUp(db, { accountId: a.id, amount: minor }), true);
    },

    async createKey(
      accountId: string | undefined,
      o: { mode?: string; scopes?: string; expiresAt?: string; allowIp?: string; rateLimit?: string },
    ) {
      const a = await account(db, accountId);
      if (!a.apiEnabled) throw new AdminError(`API access is not enabled for ${a.id}: run "account enable-api ${a.id}" first`);
      if (o.mode !== 'test' && o.mode !== 'live') throw new AdminError('--mode must be test or live');
      // An empty list is a mistake, not "every scope" (a key with every scope must be asked for: all).
      if (o.scopes !== undefined && !o.scopes.trim()) throw new AdminError('--scopes needs at least one scope, or all');
      const scopes = o.scopes === undefined || o.scopes === 'all' ? [...SCOPES] : o.scopes.split(',').map((s) => s.trim());
      const unknown = scopes.filter((s) => !isScope(s));
      if (unknown.length) throw new AdminError(`unknown scopes: ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
      let expiresAt: Date | null = null;
      if (o.expiresAt !== undefined) {
        // The API's own parser: a real calendar date (2027-02-30 is refused, not read as 2 March). A
        // time without an offset is UTC, as the portal's form sends it, never the operator's own zone.
        const utc = /T[\d:.,]+$/i.test(o.expiresAt) ? `${o.expiresAt}Z` : o.expiresAt;
        const parsed = parseIsoInstant(utc);
        if (!parsed) throw new AdminError('--expires-at must be an ISO 8601 date or date-time, such as 2027-01-31T18:00Z');
        expiresAt = parsed;
        // A key expired when issued could never authenticate: refused, as any other bad input.
        if (expiresAt <= now()) throw new AdminError(`--expires-at must be in the future, got ${expiresAt.toISOString()}`);
      }
      const allowedIps = o.allowIp ? o.allowIp.split(',').map((s) => s.trim()) : null;
      const badIps = (allowedIps ?? []).filter((c) => !isValidCidr(c));
      if (badIps.length) throw new AdminError(`--allow-ip has invalid CIDR blocks: ${badIps.join(', ')}`);
      let rate = { count: 100, seconds: 10 };
      if (o.rateLimit !== undefined) {
        const m = /^(\d+)\/(\d+)$/.exec(o.rateLimit);
        // Both numbers are stored as 32-bit integers: a larger one would fail the insert (a 500 in the portal).
        const fits = (n: number) => n >= 1 && n <= MAX_INT32;
        if (!m || !fits(Number(m[1])) || !fits(Number(m[2]))) {
          throw new AdminError(`--rate-limit must look like 100/10 (requests/seconds), each number from 1 to ${MAX_INT32}`);
        }
        rate = { count: Number(m[1]), seconds: Number(m[2]) };
      }
      const livemode = o.mode === 'live';
      const secret = generateApiKey(livemode);
      const row = await insertApiKey(db, {
        id: newId('key'),
        accountId: a.id,
        livemode,
        keyHash: hashApiKey(secret),
        prefix: keyPrefix(secret),
        scopes,
        expiresAt,
        allowedIps,
        rateLimitCount: rate.count,
        rateLimitSeconds: rate.seconds,
        createdAt: now(),
      });
      return { id: row.id, key: secret };
    },

    /** With `accountId`, only that account's key (the portal): another's is as unknown as none. */
    async revokeKey(keyId: string | undefined, o: { accountId?: string } = {}) {
      if (!keyId) throw new AdminError('a key id (key_…) is required');
      const row = await revokeApiKey(db, keyId, now(), o.accountId);
      if (!row) throw new AdminError(`no key ${keyId}`);
      return { id: row.id, revoked: true, revoked_at: row.revokedAt?.toISOString() ?? null };
    },

    /** A portal user of the account; `admin` users see the admin console instead. */
    async createUser(accountId: string | undefined, o: { email?: string; password?: string; admin?: boolean }) {
      const a = await account(db, accountId);
      const email = (o.email ?? '').trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) throw new AdminError('--email must be an email address');
      const password = o.password ?? '';
      if (password.length < 12 || password.length > 200) throw new AdminError('--password must be 12 to 200 characters');
      if (await findUserByEmail(db, email)) throw new AdminError(`a user with email ${email} already exists`);
      const row = await insertUser(db, {
        id: newId('usr'),
        accountId: a.id,
        email,
        passwordHash: await hashPassword(password),
        isAdmin: o.admin === true,
        createdAt: now(),
      });
      return { id: row.id, account_id: a.id, email: row.email, admin: row.isAdmin };
    },
  };
}
export type AdminCommands = ReturnType<typeof adminCommands>;
