/**
 * Derives the histories a worker build from before `purchasePath` writes for a shipment whose input
 * names it (a new API beside an old build, during a ramp or after a rollback): the old build ignores
 * the field and records its patch marker. Such a history is a recorded `v3-*` one with the field
 * added to the workflow's input, which is all the old build would have done differently:
 *   npx tsx test/replay/name-path.ts
 * writes test/replay/histories/v3-named-path-<name>.json for each name below.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { EncryptionCodec } from '../../codec/index.js';
import { DEV_PAYLOAD_ENCRYPTION_KEY, PURCHASE_PATH } from '../../domain/index.js';

const DIR = path.resolve(import.meta.dirname, 'histories');
const NAMES = ['shipment-purchase-first-run', 'shipment-delivered-last-run'];
const codec = new EncryptionCodec(DEV_PAYLOAD_ENCRYPTION_KEY, []);

for (const name of NAMES) {
  const history = historyFromJSON(JSON.parse(await readFile(path.join(DIR, `v3-${name}.json`), 'utf8')));
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (!started?.input?.payloads?.length) throw new Error(`v3-${name}: no workflow input`);
  const [plain] = await codec.decode(started.input.payloads as Payload[]);
  const input = JSON.parse(Buffer.from(plain.data ?? []).toString('utf8'));
  input.purchasePath = PURCHASE_PATH;
  const [sealed] = await codec.encode([{ ...plain, data: Buffer.from(JSON.stringify(input), 'utf8') }]);
  started.input.payloads = [sealed];
  await writeFile(path.join(DIR, `v3-named-path-${name}.json`), `${historyToJSON(history)}\n`);
  process.stderr.write(`v3-named-path-${name}: ${history.events?.length ?? 0} events\n`);
}
