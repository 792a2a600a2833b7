import type { Client } from '@temporalio/client';
import type { Config } from '../config/index.js';
import type { Db } from '../db/index.js';
import type { Catalog } from './catalog.js';

/**
 * What every route, page and service of the API is given: the configuration, the database, the
 * Temporal client, the catalog of carriers' services and the clock. app.ts builds it once and hands
 * it to each route it registers.
 */
export interface AppContext {
  config: Config;
  db: Db;
  temporal: Client;
  catalog: Catalog;
  now: () => Date;
}
