import { CODE, ApiError, isId, type IdPrefix } from '../domain/index.js';

/** Cursors are opaque to clients: the last id seen (ids sort by creation time), base64url-encoded. */
export const encodeCursor = (id: string) => Buffer.from(id, 'utf8').toString('base64url');

/**
 * The id a cursor of this list stands for; undefined when it is not one this API returned. Only the
 * encoding this API writes is read (the decoder alone would also take padding, `+` and `/`, and skip
 * any other character), so a cursor is valid exactly when the list's pattern (api/schemas.ts) says so.
 */
export function cursorId(cursor: string, prefix: IdPrefix): string | undefined {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return isId(prefix, id) && encodeCursor(id) === cursor ? id : undefined;
}

export function decodeCursor(cursor: string, prefix: IdPrefix): string {
  const id = cursorId(cursor, prefix);
  if (id === undefined) {
    throw new ApiError(CODE.validation_failed, 'The cursor is not one this API returned.', {
      errors: [{ path: 'querystring.cursor', message: 'is not a valid cursor' }],
    });
  }
  return id;
}

/** One page of a list (contract: Resources, lists): newest first, `next_cursor` after the last row. */
export function listPage<T extends { id: string }>(page: { rows: T[]; hasMore: boolean }, toJson: (row: T) => unknown) {
  const { rows, hasMore } = page;
  return {
    object: 'list' as const,
    data: rows.map((row) => toJson(row)),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor(rows[rows.length - 1].id) : null,
  };
}
