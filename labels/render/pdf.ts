import { helvetica, helveticaBold, winAnsiBinary } from './font-metrics.js';
import { LABEL_HEIGHT, LABEL_WIDTH, type LabelElement } from './layout.js';
import { FONT_BOLD, FONT_REGULAR, pdfLiteral, pdfNumber as n, writePdf } from './pdf-file.js';
import { metadataDate } from './text.js';
import type { LabelInput } from './types.js';

/** A4 in points (210 × 297 mm). */
export const A4_WIDTH = 595.28;
export const A4_HEIGHT = 841.89;
// The 4 × 6 label sits centred in the upper part of the A4 sheet, leaving room to cut or fold.
const A4_TOP_MARGIN = 36;

const PRODUCER = 'parcel-shipping label renderer';
const CUT_HERE = 'Cut along the dashed line and attach the label to the parcel.';

export type PdfPageSize = 'label' | 'a4';

/** The label laid out as `elements` (see layoutLabel), as a PDF page of the given size. */
export function renderPdf(input: LabelInput, elements: readonly LabelElement[], size: PdfPageSize): Uint8Array {
  const info = {
    title: `Shipping label ${input.trackingNumber}`,
    producer: PRODUCER,
    creator: PRODUCER,
    date: metadataDate(input.date),
  };
  if (size === 'label') {
    const content = paint(elements, { x: 0, top: LABEL_HEIGHT });
    return writePdf({ width: LABEL_WIDTH, height: LABEL_HEIGHT, content }, info);
  }
  const x = (A4_WIDTH - LABEL_WIDTH) / 2;
  const top = A4_HEIGHT - A4_TOP_MARGIN;
  const bottom = top - LABEL_HEIGHT;
  const content =
    dashedBorder(x, bottom, LABEL_WIDTH, LABEL_HEIGHT) +
    paint(elements, { x, top }) +
    text(CUT_HERE, FONT_REGULAR, 8, x, bottom - 16, 0.3);
  return writePdf({ width: A4_WIDTH, height: A4_HEIGHT, content }, info);
}

/** Where the label's top-left corner lands on the page, in PDF coordinates (y up). */
interface Origin {
  x: number;
  top: number;
}

/** The content stream operators that draw the label's elements. */
function paint(elements: readonly LabelElement[], at: Origin): string {
  // Layout y grows downwards from the label's top; PDF y grows upwards from the page's bottom.
  const pageY = (y: number): number => at.top - y;
  let out = '';
  for (const el of elements) {
    switch (el.kind) {
      case 'box':
        out += fillRects([{ x: at.x + el.x, y: pageY(el.y + el.height), width: el.width, height: el.height }]);
        break;
      case 'text': {
        const width = (el.bold ? helveticaBold : helvetica).widthOf(el.text, el.size);
        const dx = el.align === 'left' ? 0 : el.align === 'right' ? el.width - width : (el.width - width) / 2;
        // The layout gives the top of the line; Helvetica's ascent is about 0.72 em above the baseline.
        const y = pageY(el.y) - el.size * 0.72;
        out += text(el.text, el.bold ? FONT_BOLD : FONT_REGULAR, el.size, at.x + el.x + dx, y, el.inverse ? 1 : 0);
        break;
      }
      case 'barcode': {
        const bottom = pageY(el.y + el.height);
        out += fillRects(
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
  return out;
}

/**
 * Fills rectangles in black with plain `re … f` operators: one path per call, no per-bar
 * transforms, so thermal printer drivers get crisp edges and the bars can be read back from the
 * content stream.
 */
function fillRects(rects: { x: number; y: number; width: number; height: number }[]): string {
  let out = '0 g\n';
  for (const r of rects) out += `${n(r.x)} ${n(r.y)} ${n(r.width)} ${n(r.height)} re\n`;
  return out + 'f\n';
}

/** One line of text with its baseline starting at (x, y), filled in the given grey (0 black, 1 white). */
function text(value: string, font: string, size: number, x: number, y: number, grey: number): string {
  return `${n(grey)} g\nBT\n${font} ${n(size)} Tf\n${n(x)} ${n(y)} Td\n${pdfLiteral(winAnsiBinary(value))} Tj\nET\n`;
}

/** The A4 sheet's cut line around the label: 0.5 pt grey, 4 on 3 off, starting bottom-left. */
function dashedBorder(x: number, y: number, width: number, height: number): string {
  // A path of lines rather than `re`, so the only rectangles in the stream are filled ones.
  return (
    `q\n0.5 G\n0.5 w\n[4 3] 0 d\n${n(x)} ${n(y)} m\n${n(x)} ${n(y + height)} l\n` +
    `${n(x + width)} ${n(y + height)} l\n${n(x + width)} ${n(y)} l\nh\nS\nQ\n`
  );
}
