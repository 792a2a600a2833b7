import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { findShipment, findShipmentDocument, storeShipmentDocument, type ShipmentRow, type StoredDocument } from '../../db/index.js';
import { ApiError, CODE, hasLabel, type Address, type Customs, type Parcel } from '../../domain/index.js';
import { commercialInvoicePdf } from '../../labels/index.js';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { DOCUMENT_FILES, signedFileLink } from '../label-links.js';
import { SignedQuery, signedLinkCheck } from '../signed-files.js';
import { RESPONSES } from '../response-schemas.js';
import { ShipmentParams } from '../schemas.js';
import { ownShipment } from './shipments.js';

const INVOICE = 'commercial_invoice';
// `format` is the link's signed name of the file (signed-files.ts reads it): here the document's type.
const FileParams = Type.Object({ shipment: Type.String(), format: Type.String({ maxLength: 40 }) });

/** How the shipment's invoice is had: drawn by us, the carrier's stored one, or none. */
function paperworkOf(ctx: AppContext, row: ShipmentRow): 'draw' | 'carrier' | null {
  if (!row.customs || !hasLabel(row.status) || !row.trackingNumber) return null;
  const paperwork = ctx.catalog.definitions.find((d) => d.code === row.carrier)?.capabilities.customsPaperwork;
  if (paperwork === 'platform_invoice' || (paperwork === 'carrier_invoice' && !row.livemode)) return 'draw';
  return paperwork === 'carrier_invoice' ? 'carrier' : null;
}

/**
 * The customs documents a shipment has to download, by type: the API's list and the portal's
 * shipment page show the same ones.
 */
export async function documentTypesOf(ctx: AppContext, row: ShipmentRow): Promise<string[]> {
  const how = paperworkOf(ctx, row);
  const listed = how === 'draw' || (how === 'carrier' && (await findShipmentDocument(ctx.db, row.id, INVOICE)) !== undefined);
  return listed ? [INVOICE] : [];
}

/**
 * Customs paperwork (contract: Customs): a commercial invoice for an international shipment with a
 * label, where the carrier's paperwork is a document of its own. The platform draws it for sandbox
 * keys and for simulated carriers; a real carrier's own is the one it gave with the label. Where
 * the carrier prints its customs form as pages of the label (USPS), there is none.
 */
export const documentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    /** The invoice, stored once: the carrier's as stored, or drawn now and stored. */
    async function invoiceOf(row: ShipmentRow): Promise<StoredDocument | undefined> {
      const how = paperworkOf(ctx, row);
      if (!how) return undefined;
      const stored = await findShipmentDocument(ctx.db, row.id, INVOICE);
      if (stored || how === 'carrier') return stored;
      const carrier = ctx.catalog.definitions.find((d) => d.code === row.carrier);
      const content = await commercialInvoicePdf({
        shipmentId: row.id,
        trackingNumber: row.trackingNumber!,
        carrierName: carrier?.name ?? row.carrier ?? '',
        serviceName: row.serviceName ?? row.serviceCode,
        from: row.fromAddress as Address,
        to: row.toAddress as Address,
        customs: row.customs as Customs,
        date: row.createdAt.toISOString(),
        weightG: (row.parcel as Parcel).weight_g,
        sandbox: !row.livemode,
      });
      return storeShipmentDocument(ctx.db, { shipmentId: row.id, type: INVOICE, format: 'pdf', content: Buffer.from(content) });
    }

    app.get<{ Params: Static<typeof ShipmentParams> }>(
      '/shipments/:shipment/documents',
      { config: { scope: 'labels:read' }, schema: { params: ShipmentParams, summary: "The shipment's customs paperwork, as signed URLs", operationId: 'listDocuments', response: RESPONSES.listDocuments } },
      async (request) => {
        const row = await ownShipment(ctx, callerOf(request), request.params.shipment);
        const data = (await documentTypesOf(ctx, row)).map((type) => ({
          object: 'shipment_document',
          livemode: row.livemode,
          type,
          format: 'pdf',
          ...signedFileLink(ctx, DOCUMENT_FILES, row.id, type),
        }));
        return { object: 'list', data };
      },
    );

    // The signed link itself: no bearer key, the signature is the credential (as a label's).
    app.get<{ Params: Static<typeof FileParams>; Querystring: Static<typeof SignedQuery> }>(
      '/document-files/:shipment/:format',
      {
        onRequest: signedLinkCheck(ctx, DOCUMENT_FILES, 'shipment'),
        schema: {
          params: FileParams,
          querystring: SignedQuery,
          summary: 'A customs document behind a signed link (no key: the signature is the credential)',
          operationId: 'downloadSignedDocument',
          security: [],
          response: RESPONSES.signedDocumentFile,
        },
      },
      async (request, reply) => {
        const { shipment } = request.params;
        const row = await findShipment(ctx.db, shipment);
        if (!row) throw new ApiError(CODE.not_found, `No shipment ${shipment}.`);
        const document = request.params.format === INVOICE ? await invoiceOf(row) : undefined;
        // Voided since the link was made, or never had one: as a label of such a shipment.
        if (!document) throw new ApiError(CODE.label_not_available, `Shipment ${row.id} has no such document.`);
        return reply
          .type('application/pdf')
          .header('cache-control', 'private, no-store')
          .header('content-disposition', `inline; filename="${row.id}-${INVOICE}.pdf"`)
          .send(document.content);
      },
    );
  };
