// The chaos run's row for deliveries the sweep had to start (tools/chaos/checks.ts): read from the
// processes' logs, as the workers write them (pino through the SDK's logger, workers/logging.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { sweptDeliveries } from '../../tools/chaos/checks.js';
import { sdkLogger } from '../../workers/logging.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('the chaos check of swept deliveries', () => {
  it('finds each delivery the sweep started in the workers’ log lines, and nothing in other lines', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'swept-'));
    dirs.push(dir);
    const destination = pino.destination({ dest: path.join(dir, 'worker-shipments-1.log'), sync: true });
    const log = sdkLogger(pino({ level: 'warn' }, destination));
    log.warn('started webhook deliveries that no announcement had started', {
      deliveries: [
        { event_id: 'evt_01m875720wtkea8b5hnz735496', endpoint_id: 'we_01m875720wtkea8b5hnz735497', event_created: '2026-11-24T16:00:00.000Z' },
        { event_id: 'evt_01m875720wtkea8b5hnz735498', endpoint_id: 'we_01m875720wtkea8b5hnz735497', event_created: '2026-11-24T16:00:00.000Z' },
      ],
      workflowId: 'sweep',
    });
    log.warn('a webhook delivery failed', { event_id: 'evt_01m875720wtkea8b5hnz735499', endpoint_id: 'we_01m875720wtkea8b5hnz735497' });
    destination.flushSync();
    expect(await sweptDeliveries(dir)).toEqual([
      'evt_01m875720wtkea8b5hnz735496 → we_01m875720wtkea8b5hnz735497',
      'evt_01m875720wtkea8b5hnz735498 → we_01m875720wtkea8b5hnz735497',
    ]);
    expect(await sweptDeliveries(path.join(dir, 'none'))).toEqual([]);
  });
});
