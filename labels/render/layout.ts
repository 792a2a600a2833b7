import type { Address } from '../../domain/index.js';
import { code128, moduleWidthPt, QUIET_ZONE_MODULES, type Code128Symbol } from './barcode.js';
import { fitText, formatDate, formatWeight, helvetica, helveticaBold, toWinAnsi, wrapText } from './text.js';
import type { LabelInput } from './types.js';

/**
 * The 4 × 6 in label as device-independent elements, laid out once and painted by both the PDF
 * and the ZPL writers so every format carries the same content in the same places. Units are
 * points with the origin at the top-left corner and y growing downwards, as on a printer.
 */

export const LABEL_WIDTH = 288;
export const LABEL_HEIGHT = 432;
const MARGIN = 12;
const CONTENT_WIDTH = LABEL_WIDTH - 2 * MARGIN;

export const SANDBOX_BANNER = 'SANDBOX \u2014 NOT FOR SHIPPING';

export type Align = 'left' | 'center' | 'right';

export interface TextElement {
  kind: 'text';
  /** Left edge of the box the text is aligned in, and its top. */
  x: number;
  y: number;
  width: number;
  align: Align;
  size: number;
  bold: boolean;
  /** Drawn white, on a black box laid out before it. */
  inverse: boolean;
  /** Already folded to WinAnsi and cut to fit `width`. */
  text: string;
}

export interface BoxElement {
  kind: 'box';
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface BarcodeElement {
  kind: 'barcode';
  /** Left edge of the first bar and top of the bars. */
  x: number;
  y: number;
  height: number;
  moduleWidth: number;
  symbol: Code128Symbol;
  data: string;
}

export type LabelElement = TextElement | BoxElement | BarcodeElement;

/** Horizontal rules are thin boxes, so both writers draw them as filled rectangles. */
const RULE = 0.75;

export function layoutLabel(input: LabelInput): LabelElement[] {
  const symbol = code128(input.trackingNumber);
  const out: LabelElement[] = [];
  let y = 0;

  const text = (value: string, at: number, size: number, opts: Partial<TextElement> = {}): void => {
    const bold = opts.bold ?? false;
    const width = opts.width ?? CONTENT_WIDTH;
    const fitted = fitText(toWinAnsi(value), bold ? helveticaBold : helvetica, size, width);
    out.push({ kind: 'text', x: MARGIN, y: at, width, align: 'left', size, bold, inverse: false, text: fitted, ...opts });
  };
  const rule = (): void => {
    out.push({ kind: 'box', x: MARGIN, y, width: CONTENT_WIDTH, height: RULE });
    y += RULE + 5;
  };
  const banner = (top: number): void => {
    out.push({ kind: 'box', x: 0, y: top, width: LABEL_WIDTH, height: 22 });
    text(SANDBOX_BANNER, top + 6, 12, { x: 0, width: LABEL_WIDTH, align: 'center', bold: true, inverse: true });
  };

  // Sandbox labels are marked at both ends so a torn or folded label still says so.
  if (input.sandbox) {
    banner(0);
    y = 28;
  } else {
    y = MARGIN;
  }

  // Carrier and service on the left; date and weight right-aligned beside them.
  const side = 90;
  text(input.carrierName, y, 16, { bold: true, width: CONTENT_WIDTH - side });
  text(formatDate(input.date), y + 2, 9, { x: LABEL_WIDTH - MARGIN - side, width: side, align: 'right' });
  text(input.serviceName, y + 19, 10, { width: CONTENT_WIDTH - side });
  text(formatWeight(input.weightG), y + 17, 12, { x: LABEL_WIDTH - MARGIN - side, width: side, align: 'right', bold: true });
  y += 34;
  rule();

  // Sender small, recipient large: the recipient is what a sorter and a driver read.
  text('FROM', y, 7, { bold: true });
  y += 9;
  for (const line of addressLines(input.from)) {
    text(line, y, 8);
    y += 10;
  }
  y += 2;
  rule();

  text('SHIP TO', y, 8, { bold: true });
  y += 11;
  const to = input.to;
  for (const line of wrapText(toWinAnsi(to.name), helveticaBold, 14, CONTENT_WIDTH, 2)) {
    text(line, y, 14, { bold: true });
    y += 16;
  }
  for (const line of [to.line1, to.line2].filter(present)) {
    text(line, y, 12);
    y += 14;
  }
  text(cityLine(to), y, 14, { bold: true });
  y += 16;
  text(to.country, y, 14, { bold: true });
  y += 18;
  rule();

  text(`Ref: ${present(input.reference) ? input.reference : '-'}`, y, 10, { bold: true });
  y += 13;
  text(`Shipment: ${input.shipmentId}`, y, 7);
  y += 10;
  rule();

  // The barcode block sits at a fixed place near the bottom, whatever the address lengths above.
  const bottom = input.sandbox ? LABEL_HEIGHT - 28 : LABEL_HEIGHT - MARGIN;
  // Taller bars scan better at an angle, so they take the room short addresses leave (at most
  // 96 pt); the blocks above are bounded, which leaves at least 64 pt in the worst case.
  const barHeight = Math.max(64, Math.min(96, bottom - 16 - 14 - y));
  const barsTop = bottom - 16 - barHeight;
  text('TRACKING #', barsTop - 10, 7, { bold: true });
  const quiet = 2 * QUIET_ZONE_MODULES;
  const moduleWidth = moduleWidthPt(symbol.modules + quiet, LABEL_WIDTH);
  const symbolWidth = symbol.modules * moduleWidth;
  out.push({
    kind: 'barcode',
    x: (LABEL_WIDTH - symbolWidth) / 2,
    y: barsTop,
    height: barHeight,
    moduleWidth,
    symbol,
    data: input.trackingNumber,
  });
  text(input.trackingNumber, barsTop + barHeight + 3, 12, { bold: true, align: 'center' });

  if (input.sandbox) banner(LABEL_HEIGHT - 22);
  return out;
}

function present(value: string | null | undefined): value is string {
  return value !== null && value !== undefined && value.trim().length > 0;
}

/** Postcode, city, then the state where the address has one (carriers in the US and CA sort by it). */
function cityLine(a: Address): string {
  return [a.postcode, a.city, a.state].filter(present).join(' ');
}

/** All lines of an address, as printed on the sender block. */
export function addressLines(a: Address): string[] {
  return [a.name, a.line1, a.line2, cityLine(a), a.country].filter(present);
}
