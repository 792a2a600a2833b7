import { promisify } from 'node:util';
import { deflate as deflateCallback } from 'node:zlib';
import { PDFDocument, type PDFRef } from 'pdf-lib';
import { labelPdf, turnOf, type Drawable, type PageSize } from './carrier-label-pdf.js';
import { contentTypeFor, type LabelFormat } from './render/index.js';

const deflate = promisify(deflateCallback);

/**
 * A real carrier's label files, made from the label document the carrier gave at purchase (stored
 * once, as it came): `pdf_6x4` and `pdf_a4` draw its image or each of its PDF's pages at 4 × 6
 * inches (the pages after the first are the customs form USPS prints with an international
 * label), `zpl` serves the carrier's own ZPL. Our renderer never draws a real carrier's label: only the
 * carrier's document is valid for its network.
 */

/** The formats carriers deliver labels in (UPS: GIF, PNG, ZPL; USPS: PDF, TIFF, JPG, PNG, ZPL). */
export type CarrierDocumentFormat = 'gif' | 'png' | 'jpg' | 'tiff' | 'pdf' | 'zpl';

export const CARRIER_DOCUMENT_FORMATS: readonly CarrierDocumentFormat[] = Object.freeze(['gif', 'png', 'jpg', 'tiff', 'pdf', 'zpl'] as const);

/** A label document as the carrier sent it: its format and its bytes in base64. */
export interface CarrierDocument {
  format: CarrierDocumentFormat;
  contentBase64: string;
}

export interface CarrierLabelFile {
  contentType: 'application/pdf' | 'application/zpl';
  content: Buffer;
}

/**
 * The stored documents lack what the format needs: ZPL when only an image (or PDF) was bought,
 * or an image when only ZPL was. The caller asks the carrier for it (UPS label recovery, USPS
 * label reprint), stores it, and makes the file again.
 */
export class CarrierDocumentMissingError extends Error {
  override readonly name = 'CarrierDocumentMissingError';
  constructor(
    readonly format: LabelFormat,
    readonly missing: 'zpl' | 'image',
  ) {
    super(
      missing === 'zpl'
        ? `the ${format} label needs the carrier's ZPL, and only its image is stored: recover the ZPL from the carrier`
        : `the ${format} label needs the carrier's label image, and only its ZPL is stored: recover the image from the carrier`,
    );
  }
}

/** A stored carrier document that cannot be read as what it claims to be. */
export class UnsupportedCarrierDocumentError extends Error {
  override readonly name = 'UnsupportedCarrierDocumentError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The label files of a real carrier's label: `label` is the document bought with it, `zpl` a ZPL
 * document stored beside it (asked for at purchase or recovered later). However many formats are
 * made, an image is decoded once and a carrier PDF parsed once.
 *
 * Rejects with CarrierDocumentMissingError when the stored documents lack what a format needs,
 * and with UnsupportedCarrierDocumentError when a document cannot be read.
 */
export function carrierLabelFiles(label: CarrierDocument, zpl?: CarrierDocument | null): (format: LabelFormat) => Promise<CarrierLabelFile> {
  let picture: ((doc: PDFDocument) => Promise<Drawable[]>) | undefined;
  return async (format) => {
    if (format === 'zpl') return { contentType: contentTypeFor(format), content: zplOf(format, label, zpl ?? undefined) };
    if (format !== 'pdf_6x4' && format !== 'pdf_a4') throw new RangeError(`unknown label format ${JSON.stringify(format satisfies never)}`);
    picture ??= pictureOf(format, label);
    const size: PageSize = format === 'pdf_a4' ? 'a4' : 'label';
    return { contentType: contentTypeFor(format), content: await labelPdf(size, picture) };
  };
}

/** The carrier's ZPL, byte for byte: from the ZPL document, else from the label if it is ZPL. */
function zplOf(format: LabelFormat, label: CarrierDocument, zpl: CarrierDocument | undefined): Buffer {
  if (zpl !== undefined && zpl.format !== 'zpl') throw new UnsupportedCarrierDocumentError(`the stored ZPL document says it is ${JSON.stringify(zpl.format)}`);
  const source = zpl ?? (label.format === 'zpl' ? label : undefined);
  if (source === undefined) {
    knownFormat(label);
    throw new CarrierDocumentMissingError(format, 'zpl');
  }
  const bytes = bytesOf(source);
  // A ZPL label is one or more ^XA … ^XZ formats (commands are case-insensitive); tilde commands
  // such as a graphic download may come first, so the check is for a format anywhere.
  if (!/\^XA/i.test(bytes.toString('latin1'))) throw new UnsupportedCarrierDocumentError('the carrier ZPL document holds no ^XA label format');
  return bytes;
}

/** What draws the label on a new PDF: the carrier's image, or every page of its PDF in order. */
function pictureOf(format: LabelFormat, label: CarrierDocument): (doc: PDFDocument) => Promise<Drawable[]> {
  knownFormat(label);
  if (label.format === 'zpl') throw new CarrierDocumentMissingError(format, 'image');
  const bytes = bytesOf(label);
  if (label.format === 'pdf') {
    let source: Promise<PDFDocument> | undefined;
    return async (doc) => {
      source ??= loadPdf(bytes);
      const drawables: Drawable[] = [];
      for (const each of (await source).getPages()) {
        const { x, y, width, height } = each.getCropBox();
        // The crop box is what a viewer shows of the page, so it is what is embedded.
        const page = await doc.embedPage(each, { left: x, bottom: y, right: x + width, top: y + height });
        drawables.push({ kind: 'page', page, width, height, turn: turnOf(each.getRotation().angle) });
      }
      return drawables;
    };
  }
  let raster: Promise<Raster> | undefined;
  return async (doc) => {
    const image = await embedRaster(doc, bytes, () => (raster ??= rasterOf(bytes)));
    return [{ kind: 'image', image: image.ref, width: image.width, height: image.height, turn: 0 }];
  };
}

/**
 * Embeds a JPEG as it is (pdf-lib copies its bytes); any other image, and a JPEG variant pdf-lib
 * cannot read, is decoded once per label (`raster`) and its pixels put in each file as they are.
 * The bytes decide, not the declared format: a carrier's "GIF" may well be a PNG.
 */
async function embedRaster(doc: PDFDocument, bytes: Buffer, raster: () => Promise<Raster>): Promise<{ ref: PDFRef; width: number; height: number }> {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    try {
      return await doc.embedJpg(bytes);
    } catch {
      // Falls through to the decoding, which reads every variant libvips knows.
    }
  }
  const { width, height, deflated } = await raster();
  // pdf-lib's own PNG path decodes and compresses again in JavaScript, on the event loop, for each
  // file: about 370 ms of a worker's CPU per 800 × 1,200 label, measured. This image is the pixels
  // sharp decoded, deflated once by zlib off the event loop, and copied into each file.
  const image = doc.context.stream(deflated, { Type: 'XObject', Subtype: 'Image', Width: width, Height: height, ColorSpace: 'DeviceRGB', BitsPerComponent: 8, Filter: 'FlateDecode' });
  return { ref: doc.context.register(image), width, height };
}

/** A label image's pixels: 8-bit RGB rows, deflated, as a PDF image's stream holds them. */
interface Raster {
  width: number;
  height: number;
  deflated: Buffer;
}

/**
 * The first frame or page of an image as opaque RGB pixels (a transparent GIF background prints as
 * white paper anyway, and an opaque image needs no soft mask in the PDF). sharp is loaded on the
 * first decoding only: processes that never meet an image label never load libvips.
 */
async function rasterOf(bytes: Buffer): Promise<Raster> {
  const { default: sharp } = await import('sharp');
  let decoded: { data: Buffer; info: { width: number; height: number; channels: number } };
  try {
    decoded = await sharp(bytes, { failOn: 'error' }).flatten({ background: '#ffffff' }).toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  } catch (cause) {
    throw new UnsupportedCarrierDocumentError(`the carrier label image cannot be decoded: ${(cause as Error).message}`, { cause });
  }
  const { width, height, channels } = decoded.info;
  if (channels !== 3) throw new UnsupportedCarrierDocumentError(`the carrier label image decoded to ${channels} channels, not RGB`);
  return { width, height, deflated: await deflate(decoded.data) };
}

async function loadPdf(bytes: Buffer): Promise<PDFDocument> {
  let source: PDFDocument;
  try {
    source = await PDFDocument.load(bytes, { updateMetadata: false });
  } catch (cause) {
    throw new UnsupportedCarrierDocumentError(`the carrier label PDF cannot be read: ${(cause as Error).message}`, { cause });
  }
  if (source.getPageCount() === 0) throw new UnsupportedCarrierDocumentError('the carrier label PDF has no page');
  return source;
}

function bytesOf(doc: CarrierDocument): Buffer {
  const bytes = Buffer.from(doc.contentBase64, 'base64');
  if (bytes.length === 0) throw new UnsupportedCarrierDocumentError(`the carrier ${doc.format} document is empty`);
  return ownBuffer(bytes);
}

/**
 * The bytes in an array buffer of their own. A small Buffer is a view into Node's shared pool,
 * and pdf-lib's JPEG reader reads the view's whole underlying buffer from its start: it would read
 * another document's bytes.
 */
function ownBuffer(view: Uint8Array): Buffer {
  const own = new Uint8Array(view.length);
  own.set(view);
  return Buffer.from(own.buffer);
}

/** Stored documents come back from JSON: a format outside the list is refused, not guessed at. */
function knownFormat(doc: CarrierDocument): void {
  if (!CARRIER_DOCUMENT_FORMATS.includes(doc.format)) {
    throw new UnsupportedCarrierDocumentError(`carrier label documents in ${JSON.stringify(doc.format)} are not supported`);
  }
}
