import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from './context.js';
import { checkFileLink, type SignedFileKind } from './label-links.js';
import { OPTIONAL_TEXT } from './schemas.js';

/** A signed link's query: its expiry and signature (text without control characters, api/hardening.ts). */
export const SignedQuery = Type.Object(
  { expires: Type.Optional(Type.String({ maxLength: 20, pattern: OPTIONAL_TEXT })), sig: Type.Optional(Type.String({ maxLength: 200, pattern: OPTIONAL_TEXT })) },
  { additionalProperties: true },
);

/**
 * The `onRequest` check of a signed file route (`/<root>/:<idParam>/:format`): no bearer key, the
 * signature is the credential. It runs before the query is validated, so a link edited past the
 * schema (a second `expires` to stretch it, characters added to `sig`) is tampered with, 403, not 422.
 */
export function signedLinkCheck(ctx: AppContext, kind: SignedFileKind, idParam: string) {
  return async (request: FastifyRequest) => {
    const params = request.params as Record<string, string>;
    const { expires, sig } = request.query as Record<string, unknown>;
    checkFileLink(kind, {
      secret: ctx.config.signingSecret,
      id: params[idParam],
      format: params.format,
      rawPath: request.url.split('?')[0],
      // Repeated, a parameter is a list: no link is written that way.
      expires: typeof expires === 'string' ? expires : undefined,
      sig: typeof sig === 'string' ? sig : undefined,
      nowSeconds: Math.floor(ctx.now().getTime() / 1000),
    });
  };
}
