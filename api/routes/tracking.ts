import { randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Scan } from '../../carriers/index.js';
import { findOwnShipment, findOwnShipmentByTracking, findShipmentByTracking, scansOf, type ShipmentRow } from '../../db/index.js';
import { CODE, ApiError, hasLabel, makeId, SCAN_STATUSES } from '../../domain/index.js';
import { scansSignal, shipmentWorkflowId } from '../../contract/index.js';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { resumeTracking } from '../resume.js';
import { carrierPushSecret, sameSecret } from '../carrier-push.js';
import { RESPONSES } from '../response-schemas.js';
import { OPTIONAL_TEXT } from '../schemas.js';

const ScanStatus = Type.Union(SCAN_STATUSES.map((s) => Type.Literal(s)));
export const SandboxScan = Type.Object(
  { status: ScanStatus, description: Type.Optional(Type.String({ maxLength: 200, pattern: OPTIONAL_TEXT })) },
  { additionalProperties: false },
);
const Location = Type.Object({ city: Type.String({ maxLength: 200 }), postcode: Type.String({ maxLength: 50 }), country: Type.String({ maxLength: 2 }) });
const CarrierPush = Type.Object(
  {
    tracking_number: Type.String({ minLength: 1, maxLength: 64 }),
    scans: Type.Array(
      Type.Object({
        id: Type.String({ minLength: 1, maxLength: 100 }),
        occurred_at: Type.String({ format: 'date-time' }),
        status: ScanStatus,
        description: Type.Optional(Type.String({ maxLength: 200 })),
        location: Type.Optional(Type.Union([Location, Type.Null()])),
        // The carrier's own status code, as it names it; `status` is ours, mapped from it.
        carrier_code: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
      }),
      { minItems: 1, maxItems: 100 },
    ),
  },
  { additionalProperties: false },
);

const DESCRIPTIONS: Record<string, string> = {
  in_transit: 'Parcel in transit',
  out_for_delivery: 'Out for delivery',
  delivered: 'Delivered',
  exception: 'Delivery exception',
};

/**
 * Hands scans to the shipment's workflow at once, without waiting for its next poll. False when no
 * workflow took them: the shipment's life ended (delivered, voided) after `row` was read.
 */
export async function pushScans(ctx: AppContext, row: ShipmentRow, scans: Scan[]): Promise<boolean> {
  try {
    await ctx.temporal.workflow.getHandle(shipmentWorkflowId(row.id)).signal(scansSignal, scans);
    return true;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    // Tracking stopped after a quiet period, or its run was stopped (an operator's Terminate or
    // Cancel): this scan starts it again. A delivered or voided shipment's workflow has ended for
    // good: its tracking is final.
    return resumeTracking(ctx.temporal, row.id, scans, ctx.db);
  }
}

export type SandboxScanBody = Static<typeof SandboxScan>;

/**
 * Records a carrier scan on a sandbox shipment (contract: Sandbox), which then flows through
 * tracking and webhooks as a real scan does: the API's `POST /sandbox/shipments/{id}/scans` and the
 * portal's sandbox scan form (api/web/) both make it here.
 */
export async function recordSandboxScan(ctx: AppContext, owner: { accountId: string; livemode: boolean }, shipmentId: string, body: SandboxScanBody) {
  // Sandbox only: a live key sees no such resource.
  const row = owner.livemode ? undefined : await findOwnShipment(ctx.db, owner, shipmentId);
  if (!row) throw new ApiError(CODE.not_found, `No sandbox shipment ${shipmentId}.`);
  // A carrier scans only a label that exists and has not reached the end of its life.
  if (!hasLabel(row.status) || row.status === 'delivered') {
    throw new ApiError(CODE.label_not_available, `A ${row.status} shipment has no label for a carrier to scan.`);
  }
  const scan: Scan = {
    id: makeId('trk', ctx.now().getTime(), randomBytes(16)),
    occurredAt: ctx.now().toISOString(),
    status: body.status,
    description: body.description?.trim() || DESCRIPTIONS[body.status],
    location: null,
  };
  if (!(await pushScans(ctx, row, [scan]))) {
    // Its workflow ended for good since the row was read (a void finished meanwhile): the scan
    // was not recorded, so it is not accepted either.
    const now = await findOwnShipment(ctx.db, owner, row.id);
    throw new ApiError(CODE.label_not_available, `A ${now?.status ?? row.status} shipment has no label for a carrier to scan.`);
  }
  return {
    object: 'scan' as const,
    livemode: false,
    shipment_id: row.id,
    tracking_number: row.trackingNumber,
    status: scan.status,
    description: scan.description,
    occurred_at: scan.occurredAt,
  };
}

/**
 * `Authorization: Bearer <CARRIER_<CODE>_WEBHOOK_SECRET>`, compared in constant time. The published
 * development secret works outside production only; production has no default at all.
 */
function carrierSecretMatches(ctx: AppContext, carrier: string, authorization: string | undefined): boolean {
  const secret = carrierPushSecret(ctx.config, ctx.catalog, carrier);
  return secret !== undefined && sameSecret(String(authorization ?? ''), `Bearer ${secret}`);
}

export const trackingRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.get<{ Params: { trackingNumber: string } }>(
      '/tracking/:trackingNumber',
      {
        config: { scope: 'tracking:read' },
        schema: { params: Type.Object({ trackingNumber: Type.String() }), summary: 'Full scan history, oldest first', operationId: 'retrieveTracking', response: RESPONSES.tracking },
      },
      async (request) => {
        const caller = callerOf(request);
        const row = await findOwnShipmentByTracking(ctx.db, caller.owner, request.params.trackingNumber);
        if (!row) throw new ApiError(CODE.not_found, `No tracking number ${request.params.trackingNumber}.`);
        const scans = await scansOf(ctx.db, row.id);
        return {
          object: 'tracking',
          livemode: row.livemode,
          tracking_number: row.trackingNumber,
          carrier: row.carrier,
          shipment_id: row.id,
          status: row.trackingStatus,
          events: scans.map((s) => ({
            id: s.id,
            occurred_at: s.occurredAt.toISOString(),
            status: s.status,
            description: s.description,
            location: s.location ?? null,
            carrier_code: s.carrierCode,
          })),
        };
      },
    );

    app.post<{ Params: { shipment: string }; Body: Static<typeof SandboxScan> }>(
      '/sandbox/shipments/:shipment/scans',
      {
        config: { scope: 'shipments:write' },
        schema: { params: Type.Object({ shipment: Type.String() }), body: SandboxScan, summary: 'Record a carrier scan on a sandbox shipment', operationId: 'createSandboxScan', response: RESPONSES.sandboxScan },
      },
      async (request, reply) => reply.code(202).send(await recordSandboxScan(ctx, callerOf(request).owner, request.params.shipment, request.body)),
    );

    // Carriers push scans here; each carrier authenticates with its own shared secret.
    app.post<{ Params: { carrier: string }; Body: Static<typeof CarrierPush> }>(
      '/carrier-webhooks/:carrier',
      {
        // A push with its carrier's secret is authenticated: the address's allowance of unauthenticated
        // and refused requests (api/address-limit.ts) does not limit a carrier's traffic; a refused push counts.
        config: { credential: (request: FastifyRequest) => carrierSecretMatches(ctx, (request.params as { carrier: string }).carrier, request.headers.authorization) },
        schema: { params: Type.Object({ carrier: Type.String({ maxLength: 50 }) }), body: CarrierPush, hide: true },
        // The secret first, before the body is read: whoever lacks it learns nothing of the body's rules.
        onRequest: async (request: FastifyRequest<{ Params: { carrier: string } }>) => {
          if (!carrierSecretMatches(ctx, request.params.carrier, request.headers.authorization)) {
            throw new ApiError(CODE.unauthorized, 'A valid carrier secret is required.', { headers: { 'www-authenticate': 'Bearer' } });
          }
        },
      },
      async (request, reply) => {
        const { carrier } = request.params;
        // Only that carrier's live shipments (a carrier never sees a sandbox one); an unknown tracking number gets the same answer as a known
        // one, so a push cannot be used to learn which tracking numbers exist.
        const row = await findShipmentByTracking(ctx.db, carrier, request.body.tracking_number);
        if (!row || !row.livemode) {
          request.log.warn({ carrier }, 'carrier push for an unknown tracking number ignored');
          return reply.code(202).send({ received: request.body.scans.length });
        }
        await pushScans(
          ctx,
          row,
          request.body.scans.map((s) => ({
            id: s.id,
            occurredAt: new Date(s.occurred_at).toISOString(),
            status: s.status,
            description: s.description ?? DESCRIPTIONS[s.status],
            location: s.location ?? null,
            carrierCode: s.carrier_code ?? null,
          })),
        );
        return reply.code(202).send({ received: request.body.scans.length });
      },
    );
  };
