import {
  PDFDocument,
  StandardFonts,
  fill,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  rgb,
  setFillingGrayscaleColor,
  type PDFFont,
  type PDFPage,
} from 'pdf-lib';
import { LABEL_HEIGHT, LABEL_WIDTH, layoutLabel, type LabelElement } from './layout.js';
import { metadataDate } from './text.js';
import type { LabelInput } from './types.js';

/** A4 in points (210 × 297 mm). */
export const A4_WIDTH = 595.28;
export const A4_HEIGHT = 841.89;
// The 4 × 6 label sits centred in the upper part of the A4 sheet, leaving room to cut or fold.
const A4_TOP_MARGIN = 36;

const PRODUCER = 'parcel-shipping label renderer';

export type PdfPageSize = 'label' | 'a4';

export async function renderPdf(input: LabelInput, size: PdfPageSize): Promise<Uint8Array> {
  const elements = layoutLabel(input);
  // updateMetadata: false keeps pdf-lib from stamping the current time, so the bytes depend on
  // the input alone.
  const doc = await PDFDocument.create({ updateMetadata: false });
  const when = metadataDate(input.date);
  doc.setTitle(`Shipping label ${input.trackingNumber}`);
  doc.setProducer(PRODUCER);
  doc.setCreator(PRODUCER);
  doc.setCreationDate(when);
  doc.setModificationDate(when);

  const fonts = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
  };

  if (size === 'label') {
    const page = doc.addPage([LABEL_WIDTH, LABEL_HEIGHT]);
    paint(page, elements, fonts, { x: 0, top: LABEL_HEIGHT });
  } else {
    const page = doc.addPage([A4_WIDTH, A4_HEIGHT]);
    const x = (A4_WIDTH - LABEL_WIDTH) / 2;
    const top = A4_HEIGHT - A4_TOP_MARGIN;
    page.drawRectangle({
      x,
      y: top - LABEL_HEIGHT,
      width: LABEL_WIDTH,
      height: LABEL_HEIGHT,
      borderColor: rgb(0.5, 0.5, 0.5),
      borderWidth: 0.5,
      borderDashArray: [4, 3],
    });
    paint(page, elements, fonts, { x, top });
    page.drawText('Cut along the dashed line and attach the label to the parcel.', {
      x,
      y: top - LABEL_HEIGHT - 16,
      size: 8,
      font: fonts.regular,
      color: rgb(0.3, 0.3, 0.3),
    });
  }
  return doc.save({ useObjectStreams: false });
}

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

/** Where the label's top-left corner lands on the page, in PDF coordinates (y up). */
interface Origin {
  x: number;
  top: number;
}

function paint(page: PDFPage, elements: LabelElement[], fonts: Fonts, at: Origin): void {
  // Layout y grows downwards from the label's top; PDF y grows upwards from the page's bottom.
  const pageY = (y: number): number => at.top - y;
  for (const el of elements) {
    switch (el.kind) {
      case 'box':
        fillRects(page, [{ x: at.x + el.x, y: pageY(el.y + el.height), width: el.width, height: el.height }]);
        break;
      case 'text': {
        const font = el.bold ? fonts.bold : fonts.regular;
        const width = font.widthOfTextAtSize(el.text, el.size);
        const dx = el.align === 'left' ? 0 : el.align === 'right' ? el.width - width : (el.width - width) / 2;
        // The layout gives the top of the line; Helvetica's ascent is about 0.72 em above the baseline.
        page.drawText(el.text, {
          x: at.x + el.x + dx,
          y: pageY(el.y) - el.size * 0.72,
          size: el.size,
          font,
          color: el.inverse ? rgb(1, 1, 1) : rgb(0, 0, 0),
        });
        break;
      }
      case 'barcode': {
        const bottom = pageY(el.y + el.height);
        fillRects(
          page,
          el.symbol.bars.map((bar) => ({
            x: at.x + el.x + bar.x * el.moduleWidth,
            y: bottom,
            width: bar.width * el.moduleWidth,
            height: el.height,
          })),
        );
        break;
      }
    }
  }
}

/**
 * Fills rectangles with plain `re … f` operators: one path per call, no per-bar transforms, so
 * thermal printer drivers get crisp edges and the bars can be read back from the content stream.
 */
function fillRects(page: PDFPage, rects: { x: number; y: number; width: number; height: number }[]): void {
  page.pushOperators(
    pushGraphicsState(),
    setFillingGrayscaleColor(0),
    ...rects.map((r) => rectangle(round(r.x), round(r.y), round(r.width), round(r.height))),
    fill(),
    popGraphicsState(),
  );
}

// Content streams need no more precision than a thousandth of a point, and shorter numbers keep
// the output byte-for-byte stable.
function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
