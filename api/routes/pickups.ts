import { randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { accountContactEmail, findOwnPickup, findOwnShipments, heldIdempotencyKey, listPickups, markPickupCancelled, recordPickup, refundFunds, type PickupRow } from '../../db/index.js';
import { carriersWhere, type PickupRequest } from '../../carriers/index.js';
import { ApiError, CODE, normalizeAddress, makeId, priceToJson, type FieldError, type Price } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf, type Caller } from '../auth.js';
import { decodeCursor, listPage } from '../pagination.js';
import { RESPONSES } from '../response-schemas.js';
import { AddressSchema, INSTANT_FORMAT, INSTANT_PATTERN, OPTIONAL_TEXT, pageQueryFor, type PageQuery } from '../schemas.js';
import { bookPickup, pickupKeepsKey, pickupWindowErrors, resumePickup } from '../services/pickup.js';
import { carrierFailure, liveAdapter } from '../services/carrier-ops.js';

/** The carriers that book collections, as their capabilities say (`pickups`). */
export const PICKUP_CARRIERS = carriersWhere((c) => c.pickups);
const instant = (description: string) => Type.String({ maxLength: 40, pattern: INSTANT_PATTERN, format: INSTANT_FORMAT, description });

export const CreatePickupSchema = Type.Object(
  {
    carrier: Type.Union(PICKUP_CARRIERS.map((c) => Type.Literal(c))),
    address: AddressSchema,
    window: Type.Object(
      {
        start: instant('When the parcels are ready (ISO 8601): in the future, at most 365 days ahead'),
        end: instant('The latest the carrier may come: after start, and at most 24 hours after it (a pickup is for one day)'),
      },
      { additionalProperties: false },
    ),
    shipment_ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 1_000, description: 'Purchased shipments of this carrier to collect' })),
    instructions: Type.Optional(Type.String({ maxLength: 200, pattern: OPTIONAL_TEXT, description: 'Where the parcels are, for the driver' })),
    phone: Type.Optional(Type.String({ maxLength: 25, pattern: '^[0-9+()\\-\\s]*[0-9][0-9+()\\-\\s]*$', description: 'A phone number at the address, for the driver; UPS requires one' })),
  },
  { additionalProperties: false },
);
type CreatePickup = Static<typeof CreatePickupSchema>;
const PickupParams = Type.Object({ id: Type.String() }, { additionalProperties: false });

export function pickupToJson(row: PickupRow) {
  const price: Price | null =
    row.priceNet === null || row.priceVat === null || row.currency === null ? null : { net: row.priceNet, vat: row.priceVat, gross: row.priceNet + row.priceVat, currency: row.currency };
  return {
    id: row.id,
    object: 'pickup' as const,
    livemode: row.livemode,
    status: row.status as 'scheduled' | 'cancelled',
    carrier: row.carrier,
    confirmation: row.confirmation,
    price: price && priceToJson(price),
    window: { start: row.windowStart.toISOString(), end: row.windowEnd.toISOString() },
    created_at: row.createdAt.toISOString(),
  };
}

const invalid = (errors: FieldError[]) => new ApiError(CODE.validation_failed, errors.length === 1 ? errors[0].message : 'The request has invalid fields; see errors.', { errors });

export const pickupRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post<{ Body: CreatePickup }>(
      '/pickups',
      {
        // The key is claimed in the transaction that records the booking, and stays bound to it
        // while the carrier's answer is unknown: a retry resolves that booking, never books anew.
        config: { scope: 'shipments:write', idempotency: { joinsInHandler: true, claimsInHandler: true, releaseOn: (error) => !pickupKeepsKey(error) } },
        schema: { body: CreatePickupSchema, summary: 'Book a carrier pickup', operationId: 'createPickup', response: RESPONSES.createPickup },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const body = request.body;
        const now = ctx.now();
        const idem = request.idempotency;
        // A key already answered (or used for another request) is answered so before anything is checked again.
        const held = idem && (await heldIdempotencyKey(ctx.db, idem.scope, now));
        if (idem && held && (held.responseStatus || held.fingerprint !== idem.fingerprint)) {
          const settled = idem.settle({ claimed: false, row: held });
          if (settled.replay) return reply.code(settled.replay.status).send(settled.replay.body);
        }
        const errors: FieldError[] = [];
        const { address, errors: addressErrors } = normalizeAddress(body.address, 'address');
        errors.push(...addressErrors);
        const start = new Date(body.window.start);
        const end = new Date(body.window.end);
        const definition = ctx.catalog.definitions.find((d) => d.code === body.carrier);
        errors.push(...pickupWindowErrors({ code: body.carrier, pickupWindow: definition?.capabilities.pickupWindow }, { start, end }, now));
        if (!definition?.capabilities.pickups) errors.push({ path: 'carrier', message: `${body.carrier} does not book pickups here` });
        const ids = body.shipment_ids ?? [];
        const rows = new Map((await findOwnShipments(ctx.db, caller.owner, ids)).map((r) => [r.id, r]));
        ids.forEach((id, i) => {
          const row = rows.get(id);
          if (!row) errors.push({ path: `shipment_ids[${i}]`, message: `no shipment ${id}` });
          else if (row.carrier !== body.carrier) errors.push({ path: `shipment_ids[${i}]`, message: `${id} is not a ${body.carrier} shipment` });
          else if (row.status !== 'purchased') errors.push({ path: `shipment_ids[${i}]`, message: `${id} is ${row.status}, not purchased` });
        });
        if (errors.length) throw invalid(errors);

        const id = makeId('pck', now.getTime(), randomBytes(16));
        const parcels = {
          count: Math.max(1, ids.length),
          totalWeightG: ids.reduce((sum, s) => sum + ((rows.get(s)?.parcel as { weight_g?: number } | undefined)?.weight_g ?? 0), 0),
          serviceCodes: ids.map((s) => rows.get(s)?.serviceCode ?? '').filter(Boolean),
          destinationCountries: [...new Set(ids.map((s) => (rows.get(s)?.toAddress as { country?: string } | undefined)?.country ?? '').filter(Boolean))],
        };
        const instructions = body.instructions?.trim() || null;
        // The carrier's request for a booking: the same for a retry of the key, whose body is the same.
        const requestFor = async (reference: string): Promise<PickupRequest> => {
          const contactEmail = await accountContactEmail(ctx.db, caller.owner.accountId);
          return {
            reference,
            address,
            window: { start: start.toISOString(), end: end.toISOString() },
            parcels,
            ...(instructions ? { instructions } : {}),
            ...(contactEmail ? { contactEmail } : {}),
            ...(body.phone ? { phone: body.phone.trim() } : {}),
          };
        };
        // A sandbox key never reaches a carrier and moves no money: the booking is made here.
        const recorded = await recordPickup(
          ctx.db,
          {
            id,
            accountId: caller.owner.accountId,
            livemode: caller.owner.livemode,
            carrier: body.carrier,
            status: caller.livemode ? 'requested' : 'scheduled',
            confirmation: caller.livemode ? '' : `SANDBOX${id.slice(-10).toUpperCase()}`,
            priceNet: null,
            priceVat: null,
            currency: null,
            address,
            windowStart: start,
            windowEnd: end,
            shipmentIds: ids,
            instructions,
            createdAt: now,
          },
          idem && { ...idem.scope, fingerprint: idem.fingerprint, now },
        );
        if (idem) {
          const settled = idem.settle(recorded.kind === 'existing' ? { claimed: false, row: recorded.key } : { claimed: true });
          if (settled.replay) return reply.code(settled.replay.status).send(settled.replay.body);
        }
        const saved =
          recorded.kind === 'existing'
            ? await resumePickup(ctx, caller, recorded.key.shipmentId, requestFor, request.log)
            : caller.livemode
              ? await bookPickup(ctx, caller, recorded.row, await requestFor(id), request.log)
              : recorded.row;
        return reply.code(201).send(pickupToJson(saved));
      },
    );

    app.post<{ Params: Static<typeof PickupParams> }>(
      '/pickups/:id/cancel',
      {
        config: { scope: 'shipments:write', takesNoBody: true, idempotency: {} },
        schema: { params: PickupParams, summary: 'Cancel a pickup; its fee is reversed', operationId: 'cancelPickup', response: RESPONSES.cancelPickup },
      },
      async (request) => {
        const caller = callerOf(request);
        const row = await ownPickup(ctx, caller, request.params.id);
        if (row.status === 'cancelled') return pickupToJson(row);
        if (row.livemode) {
          const adapter = liveAdapter(ctx, row.carrier);
          try {
            if (!adapter.cancelPickup) throw new Error(`carrier ${row.carrier} cannot cancel pickups`);
            await adapter.cancelPickup(row.confirmation);
          } catch (error) {
            carrierFailure(error);
          }
        }
        const cancelled = (await markPickupCancelled(ctx.db, row.id, ctx.now())) ?? (await ownPickup(ctx, caller, row.id));
        if (row.livemode && row.priceNet !== null) await refundFunds(ctx.db, { accountId: row.accountId, shipmentId: row.id });
        return pickupToJson(cancelled);
      },
    );

    app.get<{ Params: Static<typeof PickupParams> }>(
      '/pickups/:id',
      { config: { scope: 'shipments:read' }, schema: { params: PickupParams, summary: 'Read one pickup', operationId: 'retrievePickup', response: RESPONSES.retrievePickup } },
      async (request) => pickupToJson(await ownPickup(ctx, callerOf(request), request.params.id)),
    );

    app.get<{ Querystring: PageQuery }>(
      '/pickups',
      { config: { scope: 'shipments:read' }, schema: { querystring: pageQueryFor('pck'), summary: 'List pickups, newest first', operationId: 'listPickups', response: RESPONSES.listPickups } },
      async (request) => {
        const caller = callerOf(request);
        const q = request.query;
        const page = await listPickups(ctx.db, { ...caller.owner, before: q.cursor ? decodeCursor(q.cursor, 'pck') : undefined, limit: q.limit ?? 20 });
        return listPage(page, pickupToJson);
      },
    );
  };

async function ownPickup(ctx: AppContext, caller: Caller, id: string): Promise<PickupRow> {
  const row = await findOwnPickup(ctx.db, caller.owner, id);
  if (!row) throw new ApiError(CODE.not_found, `No pickup ${id}.`);
  return row;
}
