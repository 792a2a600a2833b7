import { degrees, drawImage, PDFDocument, type PDFEmbeddedPage, type PDFPage, type PDFRef } from 'pdf-lib';

/**
 * Puts a carrier's label (an image, or each page of its PDF) on a page of ours: turned
 * upright when it is landscape, and fitted into a 4 × 6 inch box, on a page of that size or
 * centred on an A4 page at print size.
 */

/** A 4 × 6 inch label, in points. */
export const LABEL_BOX = { width: 288, height: 432 } as const;
/** ISO A4 in points (210 × 297 mm). */
export const A4_PAGE = { width: 595.28, height: 841.89 } as const;

export type PageSize = 'label' | 'a4';

/** Something pdf-lib draws: an image XObject (its size in pixels) or an embedded page. */
export type Drawable =
  | { kind: 'image'; image: PDFRef; width: number; height: number; turn: Turn }
  | { kind: 'page'; page: PDFEmbeddedPage; width: number; height: number; turn: Turn };

/** A clockwise quarter-turn count, as PDF's page /Rotate counts it. */
export type Turn = 0 | 90 | 180 | 270;

/**
 * A new PDF with a page per drawable: the label, then any further pages the carrier's document
 * holds (an international label's customs form), each placed as the label is. Metadata stays
 * unset so that the same carrier document always gives the same bytes; without object streams
 * the file reads in the oldest print servers too.
 */
export async function labelPdf(size: PageSize, embed: (doc: PDFDocument) => Promise<Drawable[]>): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const sheet = size === 'a4' ? A4_PAGE : LABEL_BOX;
  for (const drawable of await embed(doc)) {
    const page = doc.addPage([sheet.width, sheet.height]);
    draw(page, drawable, {
      x: (sheet.width - LABEL_BOX.width) / 2,
      y: (sheet.height - LABEL_BOX.height) / 2,
    });
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** How far clockwise to turn something whose own turn is `turn` (a PDF page's /Rotate) so it stands upright. */
export function uprightTurn(width: number, height: number, turn: Turn): Turn {
  const shown = turn === 90 || turn === 270 ? { width: height, height: width } : { width, height };
  return shown.width > shown.height ? (((turn + 90) % 360) as Turn) : turn;
}

/** A page's /Rotate as a quarter-turn count; PDF allows only multiples of 90, any sign. */
export function turnOf(angle: number): Turn {
  return ((((Math.round(angle / 90) * 90) % 360) + 360) % 360) as Turn;
}

/**
 * Draws the drawable turned clockwise by its upright turn, as large as fits the 4 × 6 box whose
 * lower-left corner is `box`, keeping its proportions (a stretched 2-D barcode may not scan) and
 * centred in the box.
 */
function draw(page: PDFPage, d: Drawable, box: { x: number; y: number }): void {
  const turn = uprightTurn(d.width, d.height, d.turn);
  const sideways = turn === 90 || turn === 270;
  const shown = sideways ? { width: d.height, height: d.width } : { width: d.width, height: d.height };
  const scale = Math.min(LABEL_BOX.width / shown.width, LABEL_BOX.height / shown.height);
  // Unturned size on the page, and the placed rectangle it fills once turned.
  const width = d.width * scale;
  const height = d.height * scale;
  const left = box.x + (LABEL_BOX.width - shown.width * scale) / 2;
  const bottom = box.y + (LABEL_BOX.height - shown.height * scale) / 2;
  const right = left + shown.width * scale;
  const top = bottom + shown.height * scale;
  // pdf-lib turns about the drawing origin (the unturned lower-left corner): that corner lands
  // on a different corner of the placed rectangle for each turn.
  const origin = { 0: { x: left, y: bottom }, 90: { x: left, y: top }, 180: { x: right, y: top }, 270: { x: right, y: bottom } }[turn];
  const options = { ...origin, width, height, rotate: degrees(-turn) };
  if (d.kind === 'image') page.pushOperators(...drawImage(page.node.newXObject('Image', d.image), { ...options, xSkew: degrees(0), ySkew: degrees(0) }));
  else page.drawPage(d.page, options);
}
