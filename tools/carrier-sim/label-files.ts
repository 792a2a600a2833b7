import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { barPattern, labelSvg, labelZpl, spacedTrackingNumber, type LabelArt } from './label-art.js';

/**
 * The simulated real carriers' label files, base64 as their APIs answer them: GIF, PNG, JPG or TIFF
 * rendered from the label's SVG with sharp, a 4 × 6 in PDF page drawn with pdf-lib, or ZPL. A file
 * is rendered once per tracking number and format (a recovery or reprint costs nothing), and the
 * renderer is warmed up when the simulator starts, so a purchase pays only its own rendering.
 */

export type LabelFileType = 'GIF' | 'PNG' | 'JPG' | 'TIFF' | 'PDF' | 'ZPL';

/** Enough for a chaos run's purchases; the oldest go first. */
const CACHE_LIMIT = 2_000;
const cache = new Map<string, Promise<string>>();

export function labelFile(art: LabelArt, type: LabelFileType): Promise<string> {
  const key = `${type}:${art.trackingNumber}`;
  let file = cache.get(key);
  if (!file) {
    file = render(art, type);
    cache.set(key, file);
    // A failed rendering is not kept: the next request tries again.
    file.catch(() => cache.delete(key));
    if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  }
  return file;
}

let warm: Promise<unknown> | undefined;

/** Loads the fonts and codecs once per process, off any request's path. */
export function warmUpLabelFiles(): void {
  const sample: LabelArt = { carrier: 'UPS', service: 'WARM UP', trackingNumber: '1Z0000000000000000', from: ['A'], to: ['B'], weight: '', reference: '' };
  warm ??= Promise.all([render(sample, 'GIF'), render(sample, 'PDF')]).catch(() => undefined);
}

async function render(art: LabelArt, type: LabelFileType): Promise<string> {
  if (type === 'ZPL') return Buffer.from(labelZpl(art)).toString('base64');
  if (type === 'PDF') return Buffer.from(await labelPdf(art)).toString('base64');
  const image = sharp(Buffer.from(labelSvg(art)));
  // Two colours and the least effort: a thermal label is black and white, and speed matters more than bytes.
  const encoded =
    type === 'GIF'
      ? image.gif({ colours: 2, effort: 1, dither: 0 })
      : type === 'PNG'
        ? image.png({ palette: true, colours: 2, effort: 1, dither: 0, compressionLevel: 1 })
        : type === 'JPG'
          ? image.jpeg({ quality: 80 })
          : image.tiff({ compression: 'lzw' });
  return (await encoded.toBuffer()).toString('base64');
}

/** A 288 × 432 pt page (4 × 6 in) with the label drawn in PDF operators: text stays text. */
async function labelPdf(art: LabelArt): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`${art.carrier} label ${art.trackingNumber}`);
  doc.setCreationDate(new Date(0));
  doc.setModificationDate(new Date(0));
  const page = doc.addPage([288, 432]);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  // The SVG's 800 × 1200 px grid, scaled to points, with y measured from the top.
  const k = 288 / 800;
  const text = (x: number, y: number, size: number, value: string, isBold = false) =>
    page.drawText(value.replace(/[^\x20-\x7e]/g, '?'), { x: x * k, y: 432 - y * k, size: size * k, font: isBold ? bold : regular });
  const rule = (y: number, h: number) => page.drawRectangle({ x: 20 * k, y: 432 - (y + h) * k, width: 760 * k, height: h * k });
  art.from.slice(0, 5).forEach((line, i) => text(30, 50 + i * 30, 24, line));
  text(560, 50, 28, art.weight, true);
  rule(215, 4);
  text(30, 265, 26, 'SHIP TO:', true);
  art.to.slice(0, 5).forEach((line, i) => text(60, 315 + i * 46, 36, line));
  rule(560, 8);
  text(200, 640, 44, art.service, true);
  text(200, 700, 26, `TRACKING #: ${spacedTrackingNumber(art.trackingNumber)}`, true);
  rule(750, 4);
  const pattern = barPattern(art.trackingNumber);
  const modules = pattern.reduce((a, b) => a + b, 0);
  const module = 680 / modules;
  let x = 60;
  pattern.forEach((w, i) => {
    if (i % 2 === 0) page.drawRectangle({ x: x * k, y: 432 - 1040 * k, width: w * module * k, height: 210 * k });
    x += w * module;
  });
  text(60, 1085, 30, spacedTrackingNumber(art.trackingNumber));
  rule(1110, 4);
  if (art.reference) text(30, 1160, 24, `REF: ${art.reference}`);
  return doc.save();
}
