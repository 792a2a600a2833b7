import { createHash } from 'node:crypto';
import { and, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import { ADDRESS_FIELDS, OPTIONAL_FINGERPRINT_FIELDS, type Address } from '../../domain/index.js';
import { isUniqueViolation, type Db } from '../connection.js';
import { addresses } from '../schema.js';

export type AddressRow = typeof addresses.$inferSelect;
type Owner = { accountId: string; livemode: boolean };

/**
 * The normalised fields, hashed: two saves of one address share it (and the unique index). An
 * absent state, company, phone or e-mail is left out rather than hashed as '', so addresses saved
 * without them keep their fingerprint; the same address with another of them is another record.
 */
export function addressFingerprint(a: Address): string {
  const fields = ADDRESS_FIELDS.filter((f) => !OPTIONAL_FINGERPRINT_FIELDS.has(f) || a[f] !== undefined).map((f) => a[f] ?? '');
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

const own = (owner: Owner, id: string) =>
  and(eq(addresses.id, id), eq(addresses.accountId, owner.accountId), eq(addresses.livemode, owner.livemode), isNull(addresses.deletedAt));

const columns = (a: Address) => ({
  name: a.name,
  line1: a.line1,
  line2: a.line2 ?? null,
  city: a.city,
  state: a.state ?? null,
  postcode: a.postcode,
  country: a.country,
  company: a.company ?? null,
  phone: a.phone ?? null,
  email: a.email ?? null,
  fingerprint: addressFingerprint(a),
});

/**
 * Saves the address, or finds the saved one with the same fields: `created` says which. The partial
 * unique index on (account, mode, fingerprint) makes this race-free between concurrent requests.
 */
export async function saveAddress(
  db: Db,
  owner: Owner,
  p: { id: string; address: Address; now: Date },
): Promise<{ row: AddressRow; created: boolean }> {
  const values = { id: p.id, ...owner, ...columns(p.address), createdAt: p.now, updatedAt: p.now };
  for (;;) {
    const [inserted] = await db
      .insert(addresses)
      .values(values)
      .onConflictDoNothing({
        target: [addresses.accountId, addresses.livemode, addresses.fingerprint],
        where: sql`deleted_at is null`, // the partial index's predicate
      })
      .returning();
    if (inserted) return { row: inserted, created: true };
    const [existing] = await db
      .select()
      .from(addresses)
      .where(
        and(
          eq(addresses.accountId, owner.accountId),
          eq(addresses.livemode, owner.livemode),
          eq(addresses.fingerprint, values.fingerprint),
          isNull(addresses.deletedAt),
        ),
      );
    // Deleted in between: the insert will succeed on the next turn.
    if (existing) return { row: existing, created: false };
  }
}

/** A saved address of this account and mode; others' and deleted ones are indistinguishable from none. */
export async function findOwnAddress(db: Db, owner: Owner, id: string): Promise<AddressRow | undefined> {
  const [row] = await db.select().from(addresses).where(own(owner, id));
  return row;
}

/** Newest first; one extra row tells whether there is more. */
export async function listAddresses(
  db: Db,
  f: Owner & { before?: string; limit: number },
): Promise<{ rows: AddressRow[]; hasMore: boolean }> {
  const where = [eq(addresses.accountId, f.accountId), eq(addresses.livemode, f.livemode), isNull(addresses.deletedAt)];
  if (f.before) where.push(lt(addresses.id, f.before));
  const rows = await db
    .select()
    .from(addresses)
    .where(and(...where))
    .orderBy(desc(addresses.id))
    .limit(f.limit + 1);
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

export type UpdateOutcome =
  | { kind: 'updated'; row: AddressRow }
  | { kind: 'missing' }
  | { kind: 'duplicate'; existingId: string };

/**
 * Replaces the fields of a saved address. An edit that would make it the same as another saved
 * address of the account is refused with that address's id (the unique index decides).
 */
export async function updateOwnAddress(db: Db, owner: Owner, id: string, address: Address, now: Date): Promise<UpdateOutcome> {
  const fields = columns(address);
  try {
    const [row] = await db
      .update(addresses)
      .set({ ...fields, updatedAt: now })
      .where(own(owner, id))
      .returning();
    return row ? { kind: 'updated', row } : { kind: 'missing' };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const [other] = await db
      .select({ id: addresses.id })
      .from(addresses)
      .where(
        and(
          eq(addresses.accountId, owner.accountId),
          eq(addresses.livemode, owner.livemode),
          eq(addresses.fingerprint, fields.fingerprint),
          isNull(addresses.deletedAt),
        ),
      );
    // The other one was deleted in between: try again.
    if (!other) return updateOwnAddress(db, owner, id, address, now);
    return { kind: 'duplicate', existingId: other.id };
  }
}

/** Soft delete: the record stays for the audit trail but is gone from every read. */
export async function deleteOwnAddress(db: Db, owner: Owner, id: string, now: Date): Promise<boolean> {
  const rows = await db.update(addresses).set({ deletedAt: now, updatedAt: now }).where(own(owner, id)).returning({ id: addresses.id });
  return rows.length > 0;
}
