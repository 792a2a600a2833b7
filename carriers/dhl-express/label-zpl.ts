import { createRequire } from 'node:module';
import type { LabelDocument } from '../types.js';

/**
 * DHL Express gives one encoding per shipment and has no operation that makes a label again, so a
 * label bought as PDF (which the invoice and our PDF files need) has no ZPL of DHL's making. Its ZPL
 * is DHL's own label drawn as a ZPL graphic: the PDF's first page rendered at 203 dpi, turned
 * upright and fitted into a 4 × 6 in label (812 × 1218 dots) as the PDF files fit it, in ZPL II's
 * compressed ASCII hex (`^GFA`).
 */

/** A 4 × 6 in label at 203 dpi, in dots. */
export const ZPL_LABEL = { width: 812, height: 1218 } as const;

/** pdfjs reads the standard fonts a PDF does not embed from its own package. */
function standardFontDataUrl(): string {
  const require = createRequire(import.meta.url);
  return `${require.resolve('pdfjs-dist/package.json').replace(/package\.json$/, '')}standard_fonts/`;
}

/** The first page of a PDF as black-and-white rows of the label, centred: `true` is a printed dot. */
async function rasterize(pdf: Buffer): Promise<{ width: number; height: number; dot: (x: number, y: number) => boolean }> {
  const [{ getDocument }, { createCanvas }] = await Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import('@napi-rs/canvas')]);
  // pdfjs detaches the buffer it is given, so it gets a copy.
  const doc = await getDocument({ data: new Uint8Array(pdf), standardFontDataUrl: standardFontDataUrl(), isEvalSupported: false, verbosity: 0 }).promise;
  try {
    const page = await doc.getPage(1);
    const plain = page.getViewport({ scale: 1 });
    // Landscape pages are turned a quarter, as the PDF files turn them.
    const rotation = (page.rotate + (plain.width > plain.height ? 90 : 0)) % 360;
    const upright = page.getViewport({ scale: 1, rotation });
    const scale = Math.min(ZPL_LABEL.width / upright.width, ZPL_LABEL.height / upright.height);
    const viewport = page.getViewport({ scale, rotation });
    const width = Math.floor(viewport.width);
    const height = Math.floor(viewport.height);
    const canvas = createCanvas(width, height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    await page.render({ canvasContext: context as never, viewport }).promise;
    const pixels = context.getImageData(0, 0, width, height).data;
    const left = Math.floor((ZPL_LABEL.width - width) / 2);
    const top = Math.floor((ZPL_LABEL.height - height) / 2);
    return {
      width: ZPL_LABEL.width,
      height: ZPL_LABEL.height,
      dot(x, y) {
        const px = x - left;
        const py = y - top;
        if (px < 0 || py < 0 || px >= width || py >= height) return false;
        const i = (py * width + px) * 4;
        // Luminance below half, on white paper (transparent counts as paper).
        return pixels[i + 3] > 127 && pixels[i] * 0.299 + pixels[i + 1] * 0.587 + pixels[i + 2] * 0.114 < 128;
      },
    };
  } finally {
    await doc.destroy();
  }
}

/** ZPL II's repeat count of a hex digit: G–Y for 1–19, g–z for multiples of 20 up to 400. */
function repeat(count: number, digit: string): string {
  if (count === 1) return digit;
  let out = '';
  let left = count;
  while (left >= 20) {
    const twenties = Math.min(Math.floor(left / 20), 20);
    out += String.fromCharCode('g'.charCodeAt(0) + twenties - 1);
    left -= twenties * 20;
  }
  if (left > 0) out += String.fromCharCode('G'.charCodeAt(0) + left - 1);
  return out + digit;
}

/** One row of hex in ZPL's compressed form: runs counted, trailing zeros as `,`. */
export function compressZplRow(hex: string): string {
  const body = hex.replace(/0+$/, '');
  let out = '';
  for (let i = 0; i < body.length; ) {
    let j = i;
    while (j < body.length && body[j] === body[i]) j++;
    out += repeat(j - i, body[i]);
    i = j;
  }
  return body.length < hex.length ? `${out},` : out;
}

/** A bitmap as one `^GFA` field: each row compressed, a row equal to the one before as `:`. */
export function zplGraphic(width: number, height: number, dot: (x: number, y: number) => boolean): string {
  const bytesPerRow = Math.ceil(width / 8);
  const rows: string[] = [];
  let previous: string | undefined;
  for (let y = 0; y < height; y++) {
    let hex = '';
    for (let b = 0; b < bytesPerRow; b++) {
      let byte = 0;
      for (let bit = 0; bit < 8; bit++) if (dot(b * 8 + bit, y)) byte |= 0x80 >> bit;
      hex += byte.toString(16).toUpperCase().padStart(2, '0');
    }
    rows.push(hex === previous ? ':' : compressZplRow(hex));
    previous = hex;
  }
  const total = bytesPerRow * height;
  return `^GFA,${total},${total},${bytesPerRow},${rows.join('')}`;
}

/** DHL's PDF label as a ZPL II label for a 203 dpi 4 × 6 in printer. */
export async function dhlLabelZpl(label: LabelDocument): Promise<LabelDocument> {
  if (label.format !== 'pdf') throw new Error(`a DHL label is bought as PDF, not ${label.format}`);
  const bitmap = await rasterize(Buffer.from(label.contentBase64, 'base64'));
  const zpl = `^XA^PW${ZPL_LABEL.width}^LL${ZPL_LABEL.height}^FO0,0${zplGraphic(bitmap.width, bitmap.height, bitmap.dot)}^FS^XZ\n`;
  return { format: 'zpl', contentBase64: Buffer.from(zpl, 'latin1').toString('base64') };
}
