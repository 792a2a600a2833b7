import { and, arrayContains, asc, desc, eq, getTableColumns, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db, Tx } from '../connection.js';
import { webhookDeliveries, webhookEndpoints } from '../schema.js';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
type Owner = { accountId: string; livemode: boolean };

export async function insertWebhookEndpoint(db: Db, row: typeof webhookEndpoints.$inferInsert): Promise<WebhookEndpointRow> {
  const [created] = await db.insert(webhookEndpoints).values(row).returning();
  return created;
}

export type EndpointInsertOutcome =
  | { created: WebhookEndpointRow }
  | { limitExceeded: number }
  | { existing: WebhookEndpointRow };

/**
 * Inserts an endpoint unless the owner already has `limit` live ones or one with the same URL
 * (`sameUrl` decides equality). Requests of one owner are serialised by a transaction-scoped
 * advisory lock, so two concurrent requests cannot both pass the checks.
 */
export async function insertWebhookEndpointWithinLimit(
  db: Db,
  row: typeof webhookEndpoints.$inferInsert,
  o: { limit: number; sameUrl: (a: string, b: string) => boolean },
): Promise<EndpointInsertOutcome> {
  return db.transaction(async (tx) => {
    const lockKey = `webhook_endpoints:${row.accountId}:${row.livemode}`;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`);
    const owner = { accountId: row.accountId, livemode: row.livemode };
    const live = await tx.select().from(webhookEndpoints).where(ownedAndLive(owner));
    const existing = live.find((e) => o.sameUrl(e.url, row.url));
    if (existing) return { existing };
    if (live.length >= o.limit) return { limitExceeded: o.limit };
    const [created] = await tx.insert(webhookEndpoints).values(row).returning();
    return { created };
  });
}

const owned = (owner: Owner) => and(eq(webhookEndpoints.accountId, owner.accountId), eq(webhookEndpoints.livemode, owner.livemode));
const ownedAndLive = (owner: Owner) => and(owned(owner), isNull(webhookEndpoints.deletedAt));

/**
 * An endpoint of this account and mode that is not deleted (others' are indistinguishable from none);
 * with `deleted`, a deleted one too (a replay of the request that created it answers as it did).
 */
export async function findOwnWebhookEndpoint(db: Db, owner: Owner, id: string, o: { deleted?: boolean } = {}): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), o.deleted ? owned(owner) : ownedAndLive(owner)));
  return row;
}

/** Any endpoint by id, deleted or not: a delivery needs to know whether its endpoint is gone. */
export async function findWebhookEndpoint(db: Db, id: string): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}

/** Newest first; the cursor is the last id seen (ids sort by creation time). */
export async function listWebhookEndpoints(
  db: Db,
  f: Owner & { before?: string; limit: number },
): Promise<{ rows: WebhookEndpointRow[]; hasMore: boolean }> {
  const where = [ownedAndLive(f)];
  if (f.before) where.push(lt(webhookEndpoints.id, f.before));
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(...where))
    .orderBy(desc(webhookEndpoints.id))
    .limit(f.limit + 1);
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** Marks the endpoint deleted; false when there was no such live endpoint of this owner. */
export async function deleteWebhookEndpoint(db: Db, owner: Owner, id: string, now: Date): Promise<boolean> {
  const deleted = await db
    .update(webhookEndpoints)
    .set({ deletedAt: now })
    .where(and(eq(webhookEndpoints.id, id), ownedAndLive(owner)))
    .returning({ id: webhookEndpoints.id });
  return deleted.length > 0;
}

/** The owner's live endpoints that take this event type (no list of types means every type). */
export async function endpointsSubscribedTo(db: Db, owner: Owner, type: string): Promise<Array<{ id: string; url: string }>> {
  return db
    .select({ id: webhookEndpoints.id, url: webhookEndpoints.url })
    .from(webhookEndpoints)
    .where(and(ownedAndLive(owner), or(isNull(webhookEndpoints.events), arrayContains(webhookEndpoints.events, [type]))))
    .orderBy(webhookEndpoints.id);
}

/**
 * Of these event types, the ones some live endpoint of the owner takes (an endpoint without a list
 * takes every type): a stored event no endpoint takes has no delivery to start.
 */
export async function typesWithSubscribers(db: Db | Tx, owner: Owner, types: string[]): Promise<Set<string>> {
  const lists = await db.select({ events: webhookEndpoints.events }).from(webhookEndpoints).where(ownedAndLive(owner));
  return typesTakenBy(lists.map((l) => l.events), types);
}

/**
 * The event lists of the live endpoints of a shipment's owner, as a column beside a read of the
 * shipment (no round trip of its own): what `typesTakenBy` takes.
 */
export function subscriptionsColumn(shipment: { accountId: AnyPgColumn; livemode: AnyPgColumn }) {
  return sql<Array<string[] | null>>`coalesce((select json_agg(${webhookEndpoints.events}) from ${webhookEndpoints} where ${webhookEndpoints.accountId} = ${shipment.accountId} and ${webhookEndpoints.livemode} = ${shipment.livemode} and ${webhookEndpoints.deletedAt} is null), '[]'::json)`;
}

/** Of these event types, the ones some of these endpoint lists takes (null takes every type). */
export function typesTakenBy(lists: Array<string[] | null>, types: string[]): Set<string> {
  return new Set(types.filter((type) => lists.some((events) => events === null || events.includes(type))));
}

/**
 * Records one attempt. A retried activity (the worker was lost mid-attempt) writes the same
 * (event, endpoint, attempt) again, and the later outcome replaces the earlier one.
 */
export async function recordWebhookAttempt(db: Db, row: typeof webhookDeliveries.$inferInsert): Promise<void> {
  await db
    .insert(webhookDeliveries)
    .values(row)
    .onConflictDoUpdate({
      target: [webhookDeliveries.eventId, webhookDeliveries.endpointId, webhookDeliveries.attempt],
      set: {
        outcome: sql`excluded.outcome`,
        statusCode: sql`excluded.status_code`,
        error: sql`excluded.error`,
        latencyMs: sql`excluded.latency_ms`,
        final: sql`excluded.final`,
        attemptedAt: sql`excluded.attempted_at`,
      },
    });
}

/** An endpoint's attempts, newest first. */
export async function listWebhookDeliveries(
  db: Db,
  f: { endpointId: string; before?: string; limit: number },
): Promise<{ rows: WebhookDeliveryRow[]; hasMore: boolean }> {
  const where = [eq(webhookDeliveries.endpointId, f.endpointId)];
  if (f.before) where.push(lt(webhookDeliveries.id, f.before));
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(...where))
    .orderBy(desc(webhookDeliveries.id))
    .limit(f.limit + 1);
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/**
 * Every delivery attempt of these events, with the URL of the endpoint it went to (a deleted
 * endpoint's too: its attempts happened), oldest first: what the portal's shipment page shows.
 */
export async function deliveriesOfEvents(db: Db, eventIds: string[]): Promise<Array<WebhookDeliveryRow & { url: string }>> {
  if (!eventIds.length) return [];
  return db
    .select({ ...getTableColumns(webhookDeliveries), url: webhookEndpoints.url })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(inArray(webhookDeliveries.eventId, eventIds))
    .orderBy(asc(webhookDeliveries.attemptedAt), asc(webhookDeliveries.id));
}

/** A stored event and an endpoint that takes it, with no delivery attempt recorded. */
export interface UndeliveredPair {
  eventId: string;
  type: string;
  accountId: string;
  livemode: boolean;
  endpointId: string;
  createdAt: Date;
}

/**
 * Events stored in [from, to) with a live endpoint of their owner that existed when the event was
 * stored, takes its type and has no delivery attempt of it: the deliveries the fan-out should have
 * started and that have not tried yet (or were never started). Event ids sort by time, so the window
 * is a range of the events' primary key; each pair is one probe of the deliveries' unique index.
 */
export async function undeliveredEvents(db: Db, o: { from: string; to: string; limit: number }): Promise<UndeliveredPair[]> {
  const rows = await db.execute<{ event_id: string; type: string; account_id: string; livemode: boolean; endpoint_id: string; created_at: Date | string }>(sql`
    select e.id as event_id, e.type, e.account_id, e.livemode, w.id as endpoint_id, e.created_at
    from events e
    join webhook_endpoints w
      on w.account_id = e.account_id and w.livemode = e.livemode and w.deleted_at is null
     and w.created_at <= e.created_at and (w.events is null or e.type = any(w.events))
    where e.id >= ${o.from} and e.id < ${o.to}
      and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.endpoint_id = w.id)
    order by e.id, w.id
    limit ${o.limit}`);
  return rows.rows.map((r) => ({ eventId: r.event_id, type: r.type, accountId: r.account_id, livemode: r.livemode, endpointId: r.endpoint_id, createdAt: new Date(r.created_at) }));
}
