import { ApiError, isId, type IdPrefix } from '../domain/index.js';

/** Cursors are opaque to clients: the last id seen (ids sort by creation time), base64url-encoded. */
export const encodeCursor = (id: string) => Buffer.from(id, 'utf8').toString('base64url');

export function decodeCursor(cursor: string, prefix: IdPrefix): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isId(prefix, id)) {
    throw new ApiError('validation_failed', 'The cursor is not one this API returned.', {
      errors: [{ path: 'cursor', message: 'is not a valid cursor' }],
    });
  }
  return id;
}
