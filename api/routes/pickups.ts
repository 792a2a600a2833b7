import { randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import {
  accountContactEmail,
  captureIn,
  findOwnPickup,
  findOwnShipments,
  holdIn,
  insertPickup,
  InsufficientFundsError,
  listPickups,
  markPickupCancelled,
  refundFunds,
  type PickupRow,
} from '../../db/index.js';
import type { BookedPickup, CarrierAdapter } from '../../carriers/index.js';
import { ApiError, CODE, makeId, normalizeAddress, priceToJson, priceWithVat, type FieldError, type Price } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf, type Caller } from '../auth.js';
import { decodeCursor, listPage } from '../pagination.js';
import { RESPONSES } from '../response-schemas.js';
import { AddressSchema, INSTANT_FORMAT, INSTANT_PATTERN, OPTIONAL_TEXT, pageQueryFor, type PageQuery } from '../schemas.js';
import { carrierFailure, liveAdapter } from './carrier-ops.js';

export const PICKUP_CARRIERS = ['ups', 'usps', 'acme'] as const;
const instant = (description: string) => Type.String({ maxLength: 40, pattern: INSTANT_PATTERN, format: INSTANT_FORMAT, description });

export const CreatePickupSchema = Type.Object(
  {
    carrier: Type.Union(PICKUP_CARRIERS.map((c) => Type.Literal(c))),
    address: AddressSchema,
    window: Type.Object(
      { start: instant('When the parcels are ready (ISO 8601, in the future)'), end: instant('The latest the carrier may come; after start') },
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
        config: { scope: 'shipments:write', idempotency: {} },
        schema: { body: CreatePickupSchema, summary: 'Book a carrier pickup', operationId: 'createPickup', response: RESPONSES.createPickup },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const body = request.body;
        const now = ctx.now();
        const errors: FieldError[] = [];
        const { address, errors: addressErrors } = normalizeAddress(body.address, 'address');
        errors.push(...addressErrors);
        const start = new Date(body.window.start);
        const end = new Date(body.window.end);
        if (!(start.getTime() > now.getTime())) errors.push({ path: 'window.start', message: 'must be in the future' });
        if (!(end.getTime() > start.getTime())) errors.push({ path: 'window.end', message: 'must be after window.start' });
        const definition = ctx.catalog.definitions.find((d) => d.code === body.carrier);
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
        const row = {
          id,
          accountId: caller.owner.accountId,
          livemode: caller.owner.livemode,
          carrier: body.carrier,
          status: 'scheduled',
          address,
          windowStart: start,
          windowEnd: end,
          shipmentIds: ids,
          instructions: body.instructions?.trim() || null,
          createdAt: now,
        };
        if (!caller.livemode) {
          // A sandbox key never reaches a carrier and moves no money: the booking is made here.
          const saved = await insertPickup(ctx.db, { ...row, confirmation: `SANDBOX${id.slice(-10).toUpperCase()}`, priceNet: null, priceVat: null, currency: null });
          return reply.code(201).send(pickupToJson(saved));
        }

        const adapter = liveAdapter(ctx, body.carrier);
        let booked: BookedPickup;
        try {
          if (!adapter.schedulePickup) throw invalid([{ path: 'carrier', message: `${body.carrier} does not book pickups here` }]);
          const contactEmail = await accountContactEmail(ctx.db, caller.owner.accountId);
          booked = await adapter.schedulePickup({
            reference: id,
            address,
            window: { start: start.toISOString(), end: end.toISOString() },
            parcels,
            ...(row.instructions ? { instructions: row.instructions } : {}),
            ...(contactEmail ? { contactEmail } : {}),
            ...(body.phone ? { phone: body.phone.trim() } : {}),
          });
        } catch (error) {
          if (error instanceof ApiError) throw error;
          carrierFailure(error);
        }
        const price = booked.fee && booked.fee.amount > 0 ? priceWithVat(booked.fee.amount, caller.account.vatRateBp / 100, caller.account.currency) : null;
        try {
          // The carrier's fee in another currency than the account's cannot be charged: the booking is undone.
          if (booked.fee && booked.fee.amount > 0 && booked.fee.currency !== caller.account.currency) {
            throw new ApiError(CODE.carrier_error, `The carrier charges its pickup fee in ${booked.fee.currency}; this account is in ${caller.account.currency}.`);
          }
          // A card is charged through the card processor as a purchase is; pickups are charged to a wallet or a credit line only.
          if (price && caller.account.fundingSource === 'card') {
            throw new ApiError(CODE.validation_failed, 'A pickup with a fee cannot be charged to a card account.', { errors: [{ path: 'carrier', message: `${body.carrier} charges a pickup fee, which a card account cannot pay here` }] });
          }
          const saved = await ctx.db.transaction(async (tx) => {
            if (price) {
              // The fee is charged as a label is: held and captured under the pickup's id.
              await holdIn(tx, { accountId: caller.owner.accountId, shipmentId: id, amount: price.gross });
              await captureIn(tx, { accountId: caller.owner.accountId, shipmentId: id });
            }
            return insertPickup(tx, { ...row, confirmation: booked.confirmation, priceNet: price?.net ?? null, priceVat: price?.vat ?? null, currency: price?.currency ?? null });
          });
          return reply.code(201).send(pickupToJson(saved));
        } catch (error) {
          await undoBooking(adapter, booked, request.log);
          if (error instanceof InsufficientFundsError) throw new ApiError(CODE.insufficient_funds, 'The balance does not cover the pickup fee.');
          throw error;
        }
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

/** A booking we cannot keep is cancelled at the carrier; if that fails too, it is logged for an operator. */
async function undoBooking(adapter: CarrierAdapter, booked: BookedPickup, log: { error(o: object, m: string): void }) {
  try {
    await adapter.cancelPickup?.(booked.confirmation);
  } catch (error) {
    log.error({ err: error, confirmation: booked.confirmation }, 'a pickup booked at the carrier could not be cancelled after its charge failed');
  }
}

async function ownPickup(ctx: AppContext, caller: Caller, id: string): Promise<PickupRow> {
  const row = await findOwnPickup(ctx.db, caller.owner, id);
  if (!row) throw new ApiError(CODE.not_found, `No pickup ${id}.`);
  return row;
}
