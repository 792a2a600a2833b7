/**
 * `npm run sdk:generate [-- --url http://localhost:3000]`: writes the SDK's types from the OpenAPI
 * document the API serves at /api/v1/openapi.json. Without --url the API is built in this process
 * (no database or Temporal is needed to produce the document) and asked for it.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createApp } from '../api/app.js';
import type { Db } from '../db/index.js';
import { parseConfig } from '../config/index.js';
import type { Client } from '@temporalio/client';
import { SDK_TYPES_PATH, sdkTypesFrom } from './sdk-types.js';

async function servedDocument(): Promise<object> {
  const i = process.argv.indexOf('--url');
  if (i > 0) {
    const res = await fetch(`${process.argv[i + 1].replace(/\/$/, '')}/api/v1/openapi.json`);
    if (!res.ok) throw new Error(`GET openapi.json: ${res.status}`);
    return (await res.json()) as object;
  }
  const app = await createApp({
    config: parseConfig({}),
    db: undefined as unknown as Db,
    temporal: undefined as unknown as Client,
    catalog: { definitions: [] },
    logger: false,
  });
  // The document the route serves, read without a request (a request would meet the per-address
  // limit, which needs the database).
  await app.ready();
  const document = JSON.parse(JSON.stringify(app.swagger())) as object;
  await app.close();
  return document;
}

await writeFile(SDK_TYPES_PATH, await sdkTypesFrom(await servedDocument()));
process.stdout.write(`wrote ${fileURLToPath(SDK_TYPES_PATH)}\n`);
