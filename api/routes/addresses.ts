import { randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import {
  deleteOwnAddress,
  findOwnAddress,
  listAddresses,
  saveAddress,
  updateOwnAddress,
  type AddressRow,
} from '../../db/index.js';
import { CODE, ApiError, makeId, normalizeAddress, type Address } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf, type Caller } from '../auth.js';
import { decodeCursor, listPage } from '../pagination.js';
import { AddressSchema, pageQueryFor, stateRules, type AddressInput, type PageQuery } from '../schemas.js';
import { RESPONSES } from '../response-schemas.js';

/** A saved address as the API shows it (contract: Resources → Addresses). */
export function addressToJson(row: AddressRow) {
  return {
    id: row.id,
    object: 'address',
    name: row.name,
    line1: row.line1,
    line2: row.line2,
    city: row.city,
    state: row.state,
    postcode: row.postcode,
    country: row.country,
    company: row.company,
    phone: row.phone,
    email: row.email,
    livemode: row.livemode,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

const AddressParams = Type.Object({ address: Type.String() }, { additionalProperties: false });
type AddressParams = Static<typeof AddressParams>;

/**
 * Any subset of the fields, each validated as on creation; `null` (or "") removes an optional one
 * (`line2`, `state`, `company`, `phone`, `email`); a US or CA address refuses losing its state.
 */
const AddressPatchSchema = Type.Object(
  {
    name: Type.Optional(AddressSchema.properties.name),
    line1: Type.Optional(AddressSchema.properties.line1),
    line2: Type.Optional(Type.Union([AddressSchema.properties.line2, Type.Null()])),
    city: Type.Optional(AddressSchema.properties.city),
    state: Type.Optional(Type.Union([AddressSchema.properties.state, Type.Null()])),
    postcode: Type.Optional(AddressSchema.properties.postcode),
    country: Type.Optional(AddressSchema.properties.country),
    company: Type.Optional(Type.Union([AddressSchema.properties.company, Type.Null()])),
    phone: Type.Optional(Type.Union([AddressSchema.properties.phone, Type.Null()])),
    email: Type.Optional(Type.Union([AddressSchema.properties.email, Type.Null()])),
  },
  { additionalProperties: false, allOf: stateRules(false) },
);
type AddressPatch = Static<typeof AddressPatchSchema>;

/** Trims and checks the address; an unknown country is a 422 like any other bad field. */
export function normalized(input: AddressInput): Address {
  const { address, errors } = normalizeAddress(input, '');
  if (errors.length) {
    const named = errors.map((e) => ({ ...e, path: e.path.replace(/^\./, '') }));
    throw new ApiError(CODE.validation_failed, 'The request has invalid fields; see errors.', { errors: named });
  }
  return address;
}

async function ownAddress(ctx: AppContext, caller: Caller, id: string): Promise<AddressRow> {
  const row = await findOwnAddress(ctx.db, caller.owner, id);
  if (!row) throw new ApiError(CODE.not_found, `No address ${id}.`);
  return row;
}

export const addressRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    // Saving the same address twice is harmless (spec §4): the second answer is 200 with the first record.
    app.post<{ Body: AddressInput }>(
      '/addresses',
      {
        config: { scope: 'addresses:write', idempotency: {} },
        schema: { body: AddressSchema, summary: 'Save an address', operationId: 'createAddress', response: RESPONSES.createAddress },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const address = normalized(request.body);
        const { row, created } = await saveAddress(ctx.db, caller.owner, {
          id: makeId('adr', Date.now(), randomBytes(16)),
          address,
          now: ctx.now(),
        });
        return reply.code(created ? 201 : 200).send(addressToJson(row));
      },
    );

    app.get<{ Querystring: PageQuery }>(
      '/addresses',
      { config: { scope: 'addresses:read' }, schema: { querystring: pageQueryFor('adr'), summary: 'List saved addresses, newest first', operationId: 'listAddresses', response: RESPONSES.listAddresses } },
      async (request) => {
        const caller = callerOf(request);
        const q = request.query;
        const { rows, hasMore } = await listAddresses(ctx.db, {
          ...caller.owner,
          before: q.cursor ? decodeCursor(q.cursor, 'adr') : undefined,
          limit: q.limit ?? 20,
        });
        return listPage({ rows, hasMore }, addressToJson);
      },
    );

    app.get<{ Params: AddressParams }>(
      '/addresses/:address',
      { config: { scope: 'addresses:read' }, schema: { params: AddressParams, summary: 'Read one saved address', operationId: 'retrieveAddress', response: RESPONSES.retrieveAddress } },
      async (request) => addressToJson(await ownAddress(ctx, callerOf(request), request.params.address)),
    );

    app.patch<{ Params: AddressParams; Body: AddressPatch }>(
      '/addresses/:address',
      {
        config: { scope: 'addresses:write' },
        schema: { params: AddressParams, body: AddressPatchSchema, summary: 'Edit a saved address', operationId: 'updateAddress', response: RESPONSES.updateAddress },
      },
      async (request) => {
        const caller = callerOf(request);
        const current = await ownAddress(ctx, caller, request.params.address);
        const patch = request.body;
        const merged: AddressInput = {
          name: patch.name ?? current.name,
          line1: patch.line1 ?? current.line1,
          city: patch.city ?? current.city,
          postcode: patch.postcode ?? current.postcode,
          country: patch.country ?? current.country,
        };
        const line2 = patch.line2 === undefined ? current.line2 : patch.line2;
        if (line2) merged.line2 = line2;
        for (const field of ['state', 'company', 'phone', 'email'] as const) {
          const value = patch[field] === undefined ? current[field] : patch[field];
          if (value) merged[field] = value;
        }
        const outcome = await updateOwnAddress(ctx.db, caller.owner, current.id, normalized(merged), ctx.now());
        if (outcome.kind === 'missing') throw new ApiError(CODE.not_found, `No address ${current.id}.`);
        if (outcome.kind === 'duplicate') {
          // Two records cannot silently merge (either id would vanish): the caller decides.
          throw new ApiError(CODE.address_already_exists, `The edit would make this address the same as ${outcome.existingId}.`, {
            fields: { existing_id: outcome.existingId },
          });
        }
        return addressToJson(outcome.row);
      },
    );

    app.delete<{ Params: AddressParams }>(
      '/addresses/:address',
      { config: { scope: 'addresses:write', takesNoBody: true }, schema: { params: AddressParams, summary: 'Delete a saved address', operationId: 'deleteAddress', response: RESPONSES.deleteAddress } },
      async (request) => {
        const caller = callerOf(request);
        const id = request.params.address;
        if (!(await deleteOwnAddress(ctx.db, caller.owner, id, ctx.now()))) throw new ApiError(CODE.not_found, `No address ${id}.`);
        return { id, object: 'address', livemode: caller.owner.livemode, deleted: true };
      },
    );
  };
