import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { Bar } from './code128.js';

/**
 * Reads a label PDF back the way a viewer does (pdfjs), so the tests check the file a customer
 * downloads rather than the renderer's intermediate layout.
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface InspectedPdf {
  pageCount: number;
  /** Size of the first page in points. */
  width: number;
  height: number;
  /** Text of the first page, items joined with newlines. */
  text: string;
  /** Rectangles (`re` path operators) on the first page, in page coordinates. */
  rects: Rect[];
}

export async function inspectPdf(bytes: Uint8Array): Promise<InspectedPdf> {
  // pdfjs takes ownership of (detaches) the buffer it is given, so it gets a copy.
  const doc = await getDocument({ data: bytes.slice(), verbosity: 0 }).promise;
  try {
    const page = await doc.getPage(1);
    const [x0, y0, x1, y1] = page.view;
    const content = await page.getTextContent();
    const text = content.items.map((item) => ('str' in item ? item.str : '')).join('\n');
    const ops = await page.getOperatorList();
    const rects: Rect[] = [];
    ops.fnArray.forEach((fn, i) => {
      if (fn !== OPS.constructPath) return;
      // pdfjs 4 batches path operators: args are [operators, flattened coordinates, bounds].
      const [pathOps, coords] = ops.argsArray[i] as [number[], number[]];
      let c = 0;
      for (const op of pathOps) {
        if (op === OPS.rectangle) {
          const [x, y, width, height] = coords.slice(c, c + 4) as [number, number, number, number];
          rects.push({ x, y, width, height });
        }
        c += coordinateCount(op);
      }
    });
    return { pageCount: doc.numPages, width: x1 - x0, height: y1 - y0, text, rects };
  } finally {
    await doc.destroy();
  }
}

function coordinateCount(op: number): number {
  switch (op) {
    case OPS.rectangle:
      return 4;
    case OPS.moveTo:
    case OPS.lineTo:
      return 2;
    case OPS.curveTo:
      return 6;
    case OPS.curveTo2:
    case OPS.curveTo3:
      return 4;
    default:
      return 0; // closePath
  }
}

/**
 * The barcode's bars: the largest set of rectangles sharing a bottom edge and a height. Rules and
 * banners on the label are single rectangles of other heights.
 */
export function barcodeBars(rects: readonly Rect[]): Bar[] {
  const groups = new Map<string, Rect[]>();
  for (const r of rects) {
    const key = `${r.y.toFixed(2)}:${r.height.toFixed(2)}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const largest = [...groups.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  return largest.map((r) => ({ x: r.x, width: r.width }));
}
