import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { createPostgresLabelStore, findShipment, type ShipmentRow } from '../../db/index.js';
import { CarrierDocumentMissingError, labelFile } from '../../labels/index.js';
import { CODE, ApiError, hasLabel, LABEL_FORMAT_LIST } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { LABEL_FILES, signedFileLink } from '../label-links.js';
import { SignedQuery, signedLinkCheck } from '../signed-files.js';
import { ownShipment } from './shipments.js';
import { RESPONSES } from '../response-schemas.js';
import { OPTIONAL_TEXT } from '../schemas.js';

const Format = Type.Union(LABEL_FORMAT_LIST.map((f) => Type.Literal(f)));
const LinkParams = Type.Object({ shipment: Type.String(), format: Format }, { additionalProperties: false });
const FileQuery = Type.Object({ format: Type.Optional(Format) }, { additionalProperties: false });
const FileParams = Type.Object({ shipment: Type.String(), format: Type.String({ maxLength: 20 }) });
type LabelFormat = (typeof LABEL_FORMAT_LIST)[number];
const isLabelFormat = (f: string): f is LabelFormat => (LABEL_FORMAT_LIST as readonly string[]).includes(f);

/** Labels of pending, failed or voided shipments are not to be had (contract: Errors). */
function assertAvailable(row: ShipmentRow) {
  if (!hasLabel(row.status)) {
    throw new ApiError(CODE.label_not_available, `The label of a ${row.status} shipment is not available.`);
  }
}

export const labelRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const store = createPostgresLabelStore(ctx.db);
    const carrierName = (code: string) => ctx.catalog.definitions.find((d) => d.code === code)?.name ?? code;

    async function sendFile(reply: FastifyReply, row: ShipmentRow, format: string) {
      assertAvailable(row);
      if (!row.trackingNumber || !isLabelFormat(format)) throw new ApiError(CODE.label_not_available, 'The label is not available.');
      // Made after the purchase was answered; a download that comes first makes it, once.
      let file;
      try {
        file = await labelFile(store, { ...row, trackingNumber: row.trackingNumber }, format, carrierName);
      } catch (err) {
        // A real carrier's label is only ever the carrier's own: a format it did not give is not drawn by us.
        if (err instanceof CarrierDocumentMissingError) {
          throw new ApiError(CODE.label_not_available, `The carrier did not provide this label as ${format}; the other formats are available.`);
        }
        throw err;
      }
      const extension = format === 'zpl' ? 'zpl' : 'pdf';
      return reply
        .type(file.contentType)
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `inline; filename="${row.id}-${format}.${extension}"`)
        .send(file.content);
    }

    app.get<{ Params: Static<typeof LinkParams> }>(
      '/shipments/:shipment/label/:format',
      { config: { scope: 'labels:read' }, schema: { params: LinkParams, summary: 'A short-lived signed URL to the label file', operationId: 'createLabelLink', response: RESPONSES.labelLink } },
      async (request) => {
        const row = await ownShipment(ctx, callerOf(request), request.params.shipment);
        assertAvailable(row);
        const { url, expires_at } = signedFileLink(ctx, LABEL_FILES, row.id, request.params.format);
        return { object: 'label_link', livemode: row.livemode, url, format: request.params.format, expires_at };
      },
    );

    app.get<{ Params: { shipment: string }; Querystring: Static<typeof FileQuery> }>(
      '/shipments/:shipment/label',
      {
        config: { scope: 'labels:read' },
        schema: { params: Type.Object({ shipment: Type.String() }), querystring: FileQuery, summary: 'The label file', operationId: 'downloadLabel', response: RESPONSES.labelFile },
      },
      async (request, reply) => {
        const row = await ownShipment(ctx, callerOf(request), request.params.shipment);
        return sendFile(reply, row, request.query.format ?? 'pdf_6x4');
      },
    );

    // The signed link itself: no bearer key, the signature is the credential.
    // Parameters are checked by the signature alone, so any changed character is invalid_signature.
    app.get<{ Params: Static<typeof FileParams>; Querystring: Static<typeof SignedQuery> }>(
      '/label-files/:shipment/:format',
      {
        // The signature first, before the query is validated: a link edited past the schema (a second
        // `expires` to stretch it, characters added to `sig`) is tampered with, 403, not a 422.
        onRequest: signedLinkCheck(ctx, LABEL_FILES, 'shipment'),
        schema: {
          params: FileParams,
          querystring: SignedQuery,
          summary: 'The label file behind a signed link (no key: the signature is the credential)',
          operationId: 'downloadSignedLabel',
          security: [],
          response: RESPONSES.signedLabelFile,
        },
      },
      async (request, reply) => {
        const { shipment, format } = request.params;
        const row = await findShipment(ctx.db, shipment);
        if (!row) throw new ApiError(CODE.not_found, `No shipment ${shipment}.`);
        return sendFile(reply, row, format);
      },
    );
  };
