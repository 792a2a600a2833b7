import type { Db } from '../connection.js';

/**
 * A query built once per database handle and sent as a named prepared statement. The hot request path
 * (every purchase reads its key, reads its row and stores its answer) otherwise pays drizzle's query
 * building on every call, and PostgreSQL parses and plans the same text again on every connection's
 * every call; prepared, drizzle only fills in the values and PostgreSQL plans once per connection.
 * Only statements whose text never varies belong here (the name stands for one text).
 */
export function preparedOn<P>(build: (db: Db) => P): (db: Db) => P {
  const cache = new WeakMap<Db, P>();
  return (db) => {
    let prepared = cache.get(db);
    if (!prepared) {
      prepared = build(db);
      cache.set(db, prepared);
    }
    return prepared;
  };
}
