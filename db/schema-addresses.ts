import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The address book (contract: Resources → Addresses), kept per account and mode. */
export const addresses = pgTable(
  'addresses',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    livemode: boolean('livemode').notNull(),
    name: text('name').notNull(),
    line1: text('line1').notNull(),
    line2: text('line2'),
    city: text('city').notNull(),
    /** ISO 3166-2 subdivision without the country prefix; null where the address has none. */
    state: text('state'),
    postcode: text('postcode').notNull(),
    country: text('country').notNull(),
    company: text('company'),
    phone: text('phone'),
    email: text('email'),
    /** Hash of the normalised fields: the same address twice is one record. */
    fingerprint: text('fingerprint').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    index('addresses_account_idx').on(t.accountId, t.livemode, t.id),
    uniqueIndex('addresses_fingerprint_idx')
      .on(t.accountId, t.livemode, t.fingerprint)
      .where(sql`${t.deletedAt} is null`),
  ],
);
