import { PDFDocument, StandardFonts } from 'pdf-lib';
import { CarrierError, type CarrierAdapter, type CarrierRegistry, type ScanForm } from '../../carriers/index.js';
import { ApiError, CODE } from '../../domain/index.js';
import type { AppContext } from '../context.js';

/**
 * What SCAN forms and pickups share: the live adapter of a carrier, a carrier's failure as our
 * answer, and a form's file as the PDF we serve.
 */

/** The live adapter of a carrier: the API's catalog is the carrier registry (api/main.ts). */
export function liveAdapter(ctx: AppContext, carrier: string): CarrierAdapter {
  const registry = ctx.catalog as Partial<CarrierRegistry>;
  if (typeof registry.adapter !== 'function') throw new Error('the API was started without a carrier registry');
  return registry.adapter(carrier, true);
}

/** A carrier's refusal is 502 `carrier_error`; a carrier we could not reach (or whose answer was lost) 503. */
export function carrierFailure(error: unknown): never {
  if (error instanceof CarrierError) {
    if (error.kind === 'definitive') throw new ApiError(CODE.carrier_error, `The carrier refused: ${error.message}`);
    throw new ApiError(CODE.carrier_unavailable, 'The carrier could not be reached in time; nothing was charged.', { headers: { 'retry-after': '30' } });
  }
  throw error;
}

/** The form's file as we serve it: the carrier's PDF as it is, or its image on a US Letter page. */
export async function formPdf(document: ScanForm['document']): Promise<Buffer> {
  const bytes = Buffer.from(document.contentBase64, 'base64');
  if (document.format === 'pdf') {
    if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') throw new CarrierError('definitive', 'the carrier sent a form that is not a PDF');
    return bytes;
  }
  const doc = await PDFDocument.create({ updateMetadata: false });
  let image;
  try {
    image = document.format === 'png' ? await doc.embedPng(bytes) : document.format === 'jpg' ? await doc.embedJpg(bytes) : undefined;
  } catch {
    image = undefined;
  }
  if (!image) throw new CarrierError('definitive', `the carrier sent a ${document.format} form we cannot read`);
  const page = doc.addPage([612, 792]);
  const scale = Math.min(572 / image.width, 752 / image.height, 1);
  page.drawImage(image, { x: (612 - image.width * scale) / 2, y: (792 - image.height * scale) / 2, width: image.width * scale, height: image.height * scale });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/**
 * A sandbox form: the same kind of page a carrier's manifest is, made here, since a sandbox key
 * never reaches a carrier. Its number says it is a sandbox one.
 */
export async function sandboxFormPdf(o: { carrierName: string; number: string; from: string[]; trackingNumbers: readonly string[] }): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Courier);
  let page = doc.addPage([612, 792]);
  let y = 750;
  const line = (text: string, size = 10) => {
    if (y < 40) {
      page = doc.addPage([612, 792]);
      y = 750;
    }
    page.drawText(text, { x: 40, y, size, font });
    y -= size + 4;
  };
  line(`${o.carrierName.toUpperCase()} MANIFEST (SANDBOX)`, 14);
  line(`Number: ${o.number}`);
  line(`Pieces: ${o.trackingNumbers.length}`);
  for (const l of o.from) line(l);
  for (const t of o.trackingNumbers) line(t, 9);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
