import { UPS_SCHEMAS } from './schemas/index.js';

/**
 * An answer of `operation` when it is the shape UPS's document defines for a success (status 200),
 * typed as the generated types say; undefined when it is not. The mapping reads only what it needs
 * and checks beyond the document where it must (a price we cannot read is never guessed).
 */
export function documentedAnswer<T>(operation: keyof typeof UPS_SCHEMAS, body: unknown): T | undefined {
  return UPS_SCHEMAS[operation].responseProblems(200, body).length === 0 ? (body as T) : undefined;
}
