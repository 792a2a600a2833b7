import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import {
  deleteWebhookEndpoint,
  encryptWebhookSecret,
  decryptWebhookSecret,
  findOwnWebhookEndpoint,
  generateWebhookSecret,
  insertWebhookEndpointWithinLimit,
  listWebhookDeliveries,
  listWebhookEndpoints,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '../../db/index.js';
import { CODE, ApiError, checkWebhookUrl, EVENT_TYPES, isPublicAddress, makeId } from '../../domain/index.js';
import type { Config } from '../../config/index.js';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { decodeCursor, listPage } from '../pagination.js';
import { pageQueryFor, WEBHOOK_URL_PATTERNS, type PageQuery } from '../schemas.js';
import { RESPONSES } from '../response-schemas.js';

/**
 * The body of `POST /webhook_endpoints`; the portal's form is checked against the same schema. The
 * URL's pattern is the part of the contract's URL rule its text can show (api/schemas.ts), by
 * whether private addresses are allowed (WEBHOOK_ALLOW_PRIVATE, which allows plain http too).
 */
export const createEndpointSchema = (allowPrivate: boolean) =>
  Type.Object(
    {
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        format: 'uri',
        pattern: allowPrivate ? WEBHOOK_URL_PATTERNS.private : WEBHOOK_URL_PATTERNS.public,
        // One description whatever the instance allows, so the SDK's types are the same everywhere.
        description:
          'https URL that receives the events; its host must be a public address, or a name that resolves to public addresses only (an instance with WEBHOOK_ALLOW_PRIVATE also takes http and private addresses)',
      }),
      events: Type.Optional(
        Type.Array(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))), {
          minItems: 1,
          uniqueItems: true,
          description: 'Event types to receive; omitted means every type',
        }),
      ),
    },
    { additionalProperties: false },
  );
export type CreateEndpoint = Static<ReturnType<typeof createEndpointSchema>>;

const EndpointParams = Type.Object({ id: Type.String() }, { additionalProperties: false });

export function endpointToJson(row: WebhookEndpointRow) {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    // No list stored means every type.
    events: row.events ?? [...EVENT_TYPES],
    created_at: row.createdAt.toISOString(),
    livemode: row.livemode,
  };
}

export function deliveryToJson(row: WebhookDeliveryRow, livemode: boolean) {
  return {
    id: row.id,
    object: 'webhook_delivery',
    event_id: row.eventId,
    attempt: row.attempt,
    outcome: row.outcome,
    status_code: row.statusCode,
    latency_ms: row.latencyMs,
    error: row.error,
    attempted_at: row.attemptedAt.toISOString(),
    livemode,
  };
}

const invalidUrl = (message: string) =>
  new ApiError(CODE.validation_failed, `The url ${message}.`, { errors: [{ path: 'url', message }] });

const DNS_TIMEOUT_MS = 5000;

/**
 * At most this many live endpoints per account and mode (contract: `limit_exceeded`): one key must
 * not be able to multiply every event into thousands of deliveries aimed at someone else.
 */
export const MAX_ENDPOINTS = 16;

/**
 * The same URL once parsed (host case, default port and percent-encoding do not make it another),
 * and as a delivery requests it: an empty query (`…/hook?`) is sent as none.
 */
function sameUrl(a: string, b: string): boolean {
  const asRequested = (text: string) => {
    const url = new URL(text);
    if (!url.search) url.search = '';
    return url.href;
  };
  try {
    return asRequested(a) === asRequested(b);
  } catch {
    return a === b;
  }
}

/**
 * The contract's URL rule: https and every address the name resolves to public, unless
 * WEBHOOK_ALLOW_PRIVATE. Checked again by the delivery at each attempt, at connection time.
 */
async function checkEndpointUrl(text: string, config: Config): Promise<void> {
  const check = checkWebhookUrl(text, { allowPrivate: config.webhookAllowPrivate });
  if (!check.ok) throw invalidUrl(check.message);
  // A fragment never reaches the receiver: `…/hook#a` beside `…/hook` would be one receiver getting
  // every event twice, past the one-endpoint-per-URL rule. (Registration only: an endpoint already
  // stored with a fragment keeps being delivered to.)
  if (text.includes('#')) throw invalidUrl('must not have a fragment (#…): it is never sent to the receiver');
  if (config.webhookAllowPrivate || check.ipLiteral) return;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    lookup(check.host, { all: true, verbatim: true }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), DNS_TIMEOUT_MS);
    }),
  ])
    .catch(() => [])
    .finally(() => clearTimeout(timer));
  if (!addresses.length) throw invalidUrl('host name does not resolve');
  if (addresses.some((a) => !isPublicAddress(a.address))) throw invalidUrl('must resolve to a public address');
}

/**
 * Registers an endpoint under the API's rules and returns it with its secret (shown only this
 * once). `POST /webhook_endpoints` and the customer portal both call this: one copy of the rules.
 */
export async function createWebhookEndpoint(
  ctx: Pick<AppContext, 'db' | 'config' | 'now'>,
  owner: { accountId: string; livemode: boolean },
  body: CreateEndpoint,
) {
  const { url } = body;
  await checkEndpointUrl(url, ctx.config);
  const id = makeId('we', ctx.now().getTime(), randomBytes(16));
  const secret = generateWebhookSecret();
  // At most MAX_ENDPOINTS per account and mode, one per URL, checked under one lock (contract: Webhooks).
  const outcome = await insertWebhookEndpointWithinLimit(
    ctx.db,
    {
      id,
      ...owner,
      url,
      events: body.events ?? null,
      secretCiphertext: encryptWebhookSecret(secret, ctx.config.webhookSecretKey, id),
      createdAt: ctx.now(),
    },
    { limit: MAX_ENDPOINTS, sameUrl: (a, b) => sameUrl(a, b) },
  );
  if ('existing' in outcome) {
    throw new ApiError(CODE.webhook_endpoint_exists, `The webhook endpoint ${outcome.existing.id} already has this URL.`);
  }
  if ('limitExceeded' in outcome) {
    throw new ApiError(
      CODE.limit_exceeded,
      `An account may have at most ${outcome.limitExceeded} webhook endpoints per mode; delete one before adding another.`,
    );
  }
  return { ...endpointToJson(outcome.created), secret };
}

export const webhookRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    async function ownEndpoint(owner: { accountId: string; livemode: boolean }, id: string) {
      const row = await findOwnWebhookEndpoint(ctx.db, owner, id);
      if (!row) throw new ApiError(CODE.not_found, `No webhook endpoint ${id}.`);
      return row;
    }

    app.post<{ Body: CreateEndpoint }>(
      '/webhook_endpoints',
      {
        config: {
          scope: 'webhooks:write',
          // An Idempotency-Key makes a retry after a lost answer safe, as on every POST that creates:
          // the replay carries the secret again, read from the endpoint (never stored with the answer),
          // deleted since or not, so a replay is the first answer (a deleted endpoint's secret signs nothing more).
          idempotency: {
            secretField: {
              name: 'secret',
              restore: async (request, stored) => {
                const row = await findOwnWebhookEndpoint(ctx.db, callerOf(request).owner, String(stored.id), { deleted: true });
                return row ? decryptWebhookSecret(row.secretCiphertext, ctx.config.webhookSecretKey, row.id) : undefined;
              },
            },
          },
        },
        schema: {
          body: createEndpointSchema(ctx.config.webhookAllowPrivate),
          summary: 'Register a webhook endpoint; its signing secret is shown only here',
          operationId: 'createWebhookEndpoint',
          response: RESPONSES.createWebhookEndpoint,
        },
      },
      async (request, reply) => {
        const created = await createWebhookEndpoint(ctx, callerOf(request).owner, request.body);
        request.log.info({ webhook_endpoint_id: created.id }, 'webhook endpoint created');
        return reply.code(201).send(created);
      },
    );

    app.get<{ Querystring: PageQuery }>(
      '/webhook_endpoints',
      { config: { scope: 'webhooks:read' }, schema: { querystring: pageQueryFor('we'), summary: 'List webhook endpoints, newest first', operationId: 'listWebhookEndpoints', response: RESPONSES.listWebhookEndpoints } },
      async (request) => {
        const q = request.query;
        const { rows, hasMore } = await listWebhookEndpoints(ctx.db, {
          ...callerOf(request).owner,
          before: q.cursor ? decodeCursor(q.cursor, 'we') : undefined,
          limit: q.limit ?? 20,
        });
        return listPage({ rows, hasMore }, endpointToJson);
      },
    );

    app.delete<{ Params: Static<typeof EndpointParams> }>(
      '/webhook_endpoints/:id',
      { config: { scope: 'webhooks:write', takesNoBody: true }, schema: {
          params: EndpointParams,
          summary: 'Delete a webhook endpoint; nothing more is sent to it',
          operationId: 'deleteWebhookEndpoint',
          response: RESPONSES.deleteWebhookEndpoint,
        } },
      async (request) => {
        const { id } = request.params;
        const deleted = await deleteWebhookEndpoint(ctx.db, callerOf(request).owner, id, ctx.now());
        if (!deleted) throw new ApiError(CODE.not_found, `No webhook endpoint ${id}.`);
        return { id, object: 'webhook_endpoint', livemode: callerOf(request).owner.livemode, deleted: true };
      },
    );

    app.get<{ Params: Static<typeof EndpointParams>; Querystring: PageQuery }>(
      '/webhook_endpoints/:id/deliveries',
      {
        config: { scope: 'webhooks:read' },
        schema: { params: EndpointParams, querystring: pageQueryFor('whd'), summary: "An endpoint's delivery attempts, newest first", operationId: 'listWebhookDeliveries', response: RESPONSES.listWebhookDeliveries },
      },
      async (request) => {
        const endpoint = await ownEndpoint(callerOf(request).owner, request.params.id);
        const q = request.query;
        const { rows, hasMore } = await listWebhookDeliveries(ctx.db, {
          endpointId: endpoint.id,
          before: q.cursor ? decodeCursor(q.cursor, 'whd') : undefined,
          limit: q.limit ?? 20,
        });
        return listPage({ rows, hasMore }, (r) => deliveryToJson(r, endpoint.livemode));
      },
    );
  };
