import { Connection, Client } from '@temporalio/client';
import pg from 'pg';
import { currentDetails } from '../../admin/index.js';
import { encryptingDataConverter } from '../../codec/index.js';
import { DEV_PAYLOAD_ENCRYPTION_KEY } from '../../config/index.js';
import { shipmentWorkflowId, webhookWorkflowId } from '../../contract/index.js';
import type { Receiver } from './clients.js';

/**
 * Why events were not acknowledged when the settle window closed, for the run's log: each event's
 * type and age, the receiver's refusals, the attempts the webhook worker recorded, and where each of
 * its delivery workflows stands in Temporal (status, the activity it waits on, its current details).
 * A failed run then says whether a delivery was never started, waits for a later retry, or is stuck.
 */
export async function explainUndelivered(
  w: { databaseUrl: string; temporalAddress: string; receiver: Receiver; started: number },
  eventIds: string[],
  log: (line: string) => void,
  limit = 5,
): Promise<void> {
  const db = new pg.Client({ connectionString: w.databaseUrl });
  await db.connect();
  const connection = await Connection.connect({ address: w.temporalAddress });
  // The chaos fleet runs in development, so its payloads are sealed with the development key.
  const dataConverter = encryptingDataConverter({ payloadEncryptionKey: DEV_PAYLOAD_ENCRYPTION_KEY, payloadDecryptionKeys: [] });
  const client = new Client({ connection, dataConverter });
  const at = (d: Date | string | null | undefined) => (d ? `t+${Math.round((new Date(d).getTime() - w.started) / 1000)} s` : '-');
  try {
    for (const id of eventIds.slice(0, limit)) {
      const event = (await db.query(`select type, account_id, shipment_id, created_at from events where id = $1`, [id])).rows[0];
      if (!event) {
        log(`  ${id}: not in the events table`);
        continue;
      }
      log(`  ${id} (${event.type}, stored ${at(event.created_at)}, receiver refused it ${w.receiver.refusals.get(id) ?? 0}×)`);
      const attempts = await db.query(`select attempt, outcome, status_code, error, attempted_at from webhook_deliveries where event_id = $1 order by attempted_at`, [id]);
      for (const a of attempts.rows) log(`    recorded attempt ${a.attempt} ${at(a.attempted_at)}: ${a.outcome} ${a.status_code ?? ''} ${a.error ?? ''}`.trimEnd());
      const endpoints = await db.query(`select id from webhook_endpoints where account_id = $1 and livemode`, [event.account_id]);
      for (const { id: endpointId } of endpoints.rows) {
        log(`    ${webhookWorkflowId(id, endpointId)}: ${await describe(client, webhookWorkflowId(id, endpointId), at)}`);
      }
      if (event.shipment_id) log(`    ${shipmentWorkflowId(event.shipment_id)}: ${await describe(client, shipmentWorkflowId(event.shipment_id), at)}`);
    }
    if (eventIds.length > limit) log(`  … and ${eventIds.length - limit} more`);
  } finally {
    await db.end();
    await connection.close();
  }
}

async function describe(client: Client, workflowId: string, at: (d: Date | undefined) => string): Promise<string> {
  const handle = client.workflow.getHandle(workflowId);
  try {
    const d = await handle.describe();
    const pending = (d.raw.pendingActivities ?? []).map(
      (a) => `activity ${a.activityType?.name} attempt ${a.attempt}${a.lastFailure?.message ? ` (last failure: ${a.lastFailure.message})` : ''}`,
    );
    const details = d.status.name === 'RUNNING' ? await currentDetails(handle) : null;
    return [`${d.status.name}, started ${at(d.startTime)}${d.closeTime ? `, closed ${at(d.closeTime)}` : ''}`, ...pending, details].filter(Boolean).join('; ');
  } catch (err) {
    return `could not be described (${(err as Error).message})`;
  }
}
