import { degrees, PDFDocument, rgb } from 'pdf-lib';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  carrierLabelFiles,
  CarrierDocumentMissingError,
  UnsupportedCarrierDocumentError,
  type CarrierDocument,
  type CarrierDocumentFormat,
} from '../../labels/index.js';

// The carrier documents are made here with the same libraries a carrier's would be read with, and
// the files are read back with pdfjs, as a viewer or print server reads them.

const A4 = { width: 595.28, height: 841.89 };
/** Where the 4 × 6 inch label sits, centred, on an A4 page. */
const A4_BOX = { x: (A4.width - 288) / 2, y: (A4.height - 432) / 2 };

type Matrix = [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
/** The matrix that applies `m` first, then `ctm` (PDF's `cm` operator). */
const concat = (m: Matrix, ctm: Matrix): Matrix => [
  m[0] * ctm[0] + m[1] * ctm[2],
  m[0] * ctm[1] + m[1] * ctm[3],
  m[2] * ctm[0] + m[3] * ctm[2],
  m[2] * ctm[1] + m[3] * ctm[3],
  m[4] * ctm[0] + m[5] * ctm[2] + ctm[4],
  m[4] * ctm[1] + m[5] * ctm[3] + ctm[5],
];
const apply = (m: Matrix, x: number, y: number) => ({ x: m[0] * x + m[2] * y + m[4], y: m[1] * x + m[3] * y + m[5] });

interface Drawn {
  kind: 'image' | 'page';
  /** An image's own size in pixels; an embedded page's size in points. */
  width: number;
  height: number;
  /** Where a point of the drawn thing lands on the page: u from its left, v from its bottom, both 0 to 1. */
  at: (u: number, v: number) => { x: number; y: number };
}

interface Inspected {
  pageCount: number;
  width: number;
  height: number;
  /** The images and embedded pages drawn at the page's top level. */
  drawn: Drawn[];
}

async function inspect(bytes: Uint8Array): Promise<Inspected> {
  // A copy in a plain Uint8Array: pdfjs refuses Buffers and detaches what it is given.
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  try {
    const page = await doc.getPage(1);
    const [x0, y0, x1, y1] = page.view;
    const ops = await page.getOperatorList();
    const drawn: Drawn[] = [];
    const stack: Matrix[] = [];
    let ctm = IDENTITY;
    let depth = 0;
    ops.fnArray.forEach((fn, i) => {
      const args = ops.argsArray[i] as unknown[];
      if (fn === OPS.save) stack.push(ctm);
      else if (fn === OPS.restore) ctm = stack.pop() ?? IDENTITY;
      else if (fn === OPS.transform) ctm = concat(args as Matrix, ctm);
      else if (fn === OPS.paintFormXObjectEnd) depth--;
      else if (fn === OPS.paintFormXObjectBegin) {
        const [matrix, [bx0, by0, bx1, by1]] = args as [Matrix, [number, number, number, number]];
        const m = concat(matrix, ctm);
        if (depth++ === 0) drawn.push({ kind: 'page', width: bx1 - bx0, height: by1 - by0, at: (u, v) => apply(m, bx0 + u * (bx1 - bx0), by0 + v * (by1 - by0)) });
      } else if (fn === OPS.paintImageXObject && depth === 0) {
        const [, width, height] = args as [string, number, number];
        const m = ctm;
        drawn.push({ kind: 'image', width, height, at: (u, v) => apply(m, u, v) });
      }
    });
    return { pageCount: doc.numPages, width: x1 - x0, height: y1 - y0, drawn };
  } finally {
    await doc.destroy();
  }
}

/** The page rectangle a drawn thing covers. */
function cover(d: Drawn) {
  const corners = [d.at(0, 0), d.at(1, 0), d.at(0, 1), d.at(1, 1)];
  const xs = corners.map((c) => c.x);
  const ys = corners.map((c) => c.y);
  return { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
}

function expectRect(actual: { x: number; y: number; width?: number; height?: number }, expected: { x: number; y: number; width?: number; height?: number }) {
  for (const key of Object.keys(expected) as (keyof typeof expected)[]) expect(actual[key], key).toBeCloseTo(expected[key]!, 2);
}

/** One page with one thing drawn on it, as every carrier label file has. */
async function onlyDrawn(bytes: Uint8Array, size: { width: number; height: number }): Promise<Drawn> {
  const pdf = await inspect(bytes);
  expect(pdf.pageCount).toBe(1);
  expect(pdf.width).toBeCloseTo(size.width, 2);
  expect(pdf.height).toBeCloseTo(size.height, 2);
  expect(pdf.drawn).toHaveLength(1);
  return pdf.drawn[0]!;
}

const doc = (format: CarrierDocumentFormat, bytes: Uint8Array | string): CarrierDocument => ({
  format,
  contentBase64: Buffer.from(bytes).toString('base64'),
});

/**
 * A label picture: white, with a black band along the edge that is the label's top (its top rows,
 * or its left columns when the carrier drew it landscape, top to the left).
 */
function picture(width: number, height: number, topAt: 'top' | 'left' = width > height ? 'left' : 'top') {
  const band = topAt === 'top' ? { width, height: Math.ceil(height / 10), left: 0, top: 0 } : { width: Math.ceil(width / 10), height, left: 0, top: 0 };
  return sharp({ create: { width, height, channels: 3, background: '#ffffff' } }).composite([
    { input: { create: { width: band.width, height: band.height, channels: 3, background: '#000000' } }, left: band.left, top: band.top },
  ]);
}

const LABEL = { width: 288, height: 432 };

/** The first image drawn on a file's first page, as a viewer decodes it: one RGB triple per pixel. */
async function imagePixels(bytes: Uint8Array): Promise<{ width: number; height: number; rgb: (x: number, y: number) => number[] }> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  try {
    const page = await doc.getPage(1);
    const ops = await page.getOperatorList();
    const [name] = ops.argsArray[ops.fnArray.indexOf(OPS.paintImageXObject)] as [string];
    const image = await new Promise<{ width: number; height: number; kind: number; data: Uint8Array }>((resolve) => page.objs.get(name, resolve));
    // pdfjs's ImageKind.RGB_24BPP: three bytes a pixel, rows top to bottom.
    expect(image.kind).toBe(2);
    return { width: image.width, height: image.height, rgb: (x, y) => [...image.data.subarray((y * image.width + x) * 3, (y * image.width + x) * 3 + 3)] };
  } finally {
    await doc.destroy();
  }
}

describe('carrier label images', () => {
  it.each([
    ['gif', () => picture(120, 180).gif().toBuffer()],
    ['png', () => picture(120, 180).png().toBuffer()],
    ['png (1-bit palette)', () => picture(120, 180).png({ palette: true, colours: 2 }).toBuffer()],
    ['jpg', () => picture(120, 180).jpeg().toBuffer()],
    ['tiff (CCITT group 4, 1-bit)', async () => sharp(await picture(120, 180).png().toBuffer()).removeAlpha().toColourspace('b-w').tiff({ compression: 'ccittfax4', bitdepth: 1, miniswhite: true }).toBuffer()],
  ] as const)('%s: pdf_6x4 is one 288 × 432 pt page filled by the image, upright', async (name, make) => {
    const format = name.split(' ')[0] as CarrierDocumentFormat;
    const file = await carrierLabelFiles(doc(format, await make()))('pdf_6x4');
    expect(file.contentType).toBe('application/pdf');
    const image = await onlyDrawn(file.content, LABEL);
    expect(image).toMatchObject({ kind: 'image', width: 120, height: 180 });
    expectRect(cover(image), { x: 0, y: 0, width: 288, height: 432 });
    // Not turned: the image's top edge is the page's top.
    expectRect(image.at(0, 1), { x: 0, y: 432 });
    expectRect(image.at(1, 0), { x: 288, y: 0 });
  });

  it.each([
    ['gif', () => picture(40, 60).gif().toBuffer()],
    ['png (1-bit palette)', () => picture(40, 60).png({ palette: true, colours: 2 }).toBuffer()],
    ['tiff (CCITT group 4, 1-bit)', async () => sharp(await picture(40, 60).png().toBuffer()).removeAlpha().toColourspace('b-w').tiff({ compression: 'ccittfax4', bitdepth: 1, miniswhite: true }).toBuffer()],
    [
      'png (transparent background)',
      () =>
        sharp({ create: { width: 40, height: 60, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
          .composite([{ input: { create: { width: 40, height: 6, channels: 4, background: '#000000' } }, left: 0, top: 0 }])
          .png()
          .toBuffer(),
    ],
  ] as const)('%s: the file holds the label’s pixels as they are, in both PDF formats (a transparent background is white paper)', async (name, make) => {
    const files = carrierLabelFiles(doc(name.split(' ')[0] as CarrierDocumentFormat, await make()));
    for (const format of ['pdf_6x4', 'pdf_a4'] as const) {
      const image = await imagePixels((await files(format)).content);
      expect([image.width, image.height]).toEqual([40, 60]);
      for (const [x, y] of [[0, 0], [39, 5], [20, 2]]) expect(image.rgb(x, y), `${format} (${x}, ${y})`).toEqual([0, 0, 0]);
      for (const [x, y] of [[0, 6], [39, 59], [20, 30]]) expect(image.rgb(x, y), `${format} (${x}, ${y})`).toEqual([255, 255, 255]);
    }
  });

  it('pdf_a4 draws the image at its print size, 4 × 6 inches, centred on an A4 page', async () => {
    const file = await carrierLabelFiles(doc('gif', await picture(120, 180).gif().toBuffer()))('pdf_a4');
    expect(file.contentType).toBe('application/pdf');
    const image = await onlyDrawn(file.content, A4);
    expect(image).toMatchObject({ kind: 'image', width: 120, height: 180 });
    expectRect(cover(image), { ...A4_BOX, width: 288, height: 432 });
  });

  it('a landscape UPS GIF (1800 × 1200, the label top along its left edge) is turned a quarter clockwise to stand upright', async () => {
    const files = carrierLabelFiles(doc('gif', await picture(1800, 1200).gif().toBuffer()));
    for (const [format, size, box] of [
      ['pdf_6x4', LABEL, { x: 0, y: 0 }],
      ['pdf_a4', A4, A4_BOX],
    ] as const) {
      const image = await onlyDrawn((await files(format)).content, size);
      expect(image).toMatchObject({ kind: 'image', width: 1800, height: 1200 });
      expectRect(cover(image), { ...box, width: 288, height: 432 });
      // The image's left edge (the label's top) runs along the top of the label box, its top
      // edge down the right side.
      expectRect(image.at(0, 0), { x: box.x, y: box.y + 432 });
      expectRect(image.at(0, 1), { x: box.x + 288, y: box.y + 432 });
      expectRect(image.at(1, 1), { x: box.x + 288, y: box.y });
    }
  });

  it('small documents decoded one after another are each read from their own bytes', async () => {
    // Small decoded Buffers share Node's pool; a reader that took the pool for the document would
    // find the first JPEG where the second is.
    const first = await carrierLabelFiles(doc('jpg', await picture(120, 180).jpeg().toBuffer()))('pdf_6x4');
    const second = await carrierLabelFiles(doc('jpg', await picture(90, 60).jpeg().toBuffer()))('pdf_6x4');
    expect(await onlyDrawn(first.content, LABEL)).toMatchObject({ width: 120, height: 180 });
    expect(await onlyDrawn(second.content, LABEL)).toMatchObject({ width: 90, height: 60 });
  });

  it('a landscape JPEG and PNG are turned the same way', async () => {
    for (const [format, bytes] of [
      ['jpg', await picture(300, 200).jpeg().toBuffer()],
      ['png', await picture(300, 200).png().toBuffer()],
    ] as const) {
      const image = await onlyDrawn((await carrierLabelFiles(doc(format, bytes))('pdf_6x4')).content, LABEL);
      expectRect(cover(image), { x: 0, y: 0, width: 288, height: 432 });
      expectRect(image.at(0, 0), { x: 0, y: 432 });
    }
  });

  it('an image not in 2:3 proportions keeps them, as large as fits, centred in the 4 × 6 box', async () => {
    // UPS's 1400 × 800 landscape GIF: upright it is 800 wide by 1400 high, narrower than 2:3.
    const image = await onlyDrawn((await carrierLabelFiles(doc('gif', await picture(140, 80).gif().toBuffer()))('pdf_6x4')).content, LABEL);
    const width = (432 * 80) / 140;
    expectRect(cover(image), { x: (288 - width) / 2, y: 0, width, height: 432 });
  });

  it('reads the bytes for what they are: a "gif" document holding a PNG still converts', async () => {
    const image = await onlyDrawn((await carrierLabelFiles(doc('gif', await picture(120, 180).png().toBuffer()))('pdf_6x4')).content, LABEL);
    expect(image).toMatchObject({ kind: 'image', width: 120, height: 180 });
  });

  it('gives the same bytes for the same document', async () => {
    const gif = doc('gif', await picture(120, 180).gif().toBuffer());
    const [a, b] = await Promise.all([carrierLabelFiles(gif)('pdf_6x4'), carrierLabelFiles(gif)('pdf_6x4')]);
    expect(a.content.equals(b.content)).toBe(true);
  });
});

/**
 * A carrier PDF: a label page with a black band along its top, then `customsPages` pages of a
 * customs form, as USPS prints with an international label.
 */
async function carrierPdf(width: number, height: number, options: { rotate?: number; crop?: [number, number, number, number]; customsPages?: number } = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([width, height]);
  page.drawRectangle({ x: 0, y: height - 20, width, height: 20, color: rgb(0, 0, 0) });
  if (options.rotate !== undefined) page.setRotation(degrees(options.rotate));
  if (options.crop !== undefined) page.setCropBox(...options.crop);
  for (let n = 1; n <= (options.customsPages ?? 0); n++) pdf.addPage([288, 432]).drawText(`CN23 page ${n}`, { x: 20, y: 400 });
  return pdf.save();
}

/** Each page's size and text, in order, as a viewer reads them. */
async function pagesOf(bytes: Uint8Array): Promise<Array<{ width: number; height: number; text: string }>> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  try {
    const pages = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const [x0, y0, x1, y1] = page.view;
      const text = (await page.getTextContent()).items.map((i) => ('str' in i ? i.str : '')).join(' ').trim();
      pages.push({ width: Math.round(x1 - x0), height: Math.round(y1 - y0), text });
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

describe('carrier label PDFs', () => {
  it('a 4 × 6 page is embedded whole, filling the 288 × 432 pt page and centred at print size on A4', async () => {
    const files = carrierLabelFiles(doc('pdf', await carrierPdf(288, 432)));
    const label = await onlyDrawn((await files('pdf_6x4')).content, LABEL);
    expect(label).toMatchObject({ kind: 'page', width: 288, height: 432 });
    expectRect(cover(label), { x: 0, y: 0, width: 288, height: 432 });
    expectRect(label.at(0, 1), { x: 0, y: 432 });
    const a4 = await onlyDrawn((await files('pdf_a4')).content, A4);
    expectRect(cover(a4), { ...A4_BOX, width: 288, height: 432 });
  });

  it('a page of another size is scaled to 4 × 6 inches, keeping its proportions', async () => {
    const label = await onlyDrawn((await carrierLabelFiles(doc('pdf', await carrierPdf(576, 864)))('pdf_6x4')).content, LABEL);
    expect(label).toMatchObject({ kind: 'page', width: 576, height: 864 });
    expectRect(cover(label), { x: 0, y: 0, width: 288, height: 432 });
  });

  it('a landscape 6 × 4 page is turned a quarter clockwise', async () => {
    const label = await onlyDrawn((await carrierLabelFiles(doc('pdf', await carrierPdf(432, 288)))('pdf_6x4')).content, LABEL);
    expectRect(cover(label), { x: 0, y: 0, width: 288, height: 432 });
    expectRect(label.at(0, 0), { x: 0, y: 432 });
  });

  it('a page the PDF itself turns (/Rotate 90) is drawn as a viewer shows it', async () => {
    // Landscape media turned clockwise by /Rotate shows portrait: no further turn.
    const label = await onlyDrawn((await carrierLabelFiles(doc('pdf', await carrierPdf(432, 288, { rotate: 90 })))('pdf_6x4')).content, LABEL);
    expectRect(cover(label), { x: 0, y: 0, width: 288, height: 432 });
    expectRect(label.at(0, 1), { x: 288, y: 432 });
  });

  it('carries the pages after the label (the customs form) into pdf_6x4 and pdf_a4 as further pages, in order', async () => {
    const files = carrierLabelFiles(doc('pdf', await carrierPdf(288, 432, { customsPages: 2 })));
    const label = await pagesOf((await files('pdf_6x4')).content);
    expect(label).toEqual([
      { width: 288, height: 432, text: '' },
      { width: 288, height: 432, text: 'CN23 page 1' },
      { width: 288, height: 432, text: 'CN23 page 2' },
    ]);
    const a4 = await pagesOf((await files('pdf_a4')).content);
    expect(a4.map((p) => [p.width, p.height, p.text])).toEqual([
      [595, 842, ''],
      [595, 842, 'CN23 page 1'],
      [595, 842, 'CN23 page 2'],
    ]);
  });

  it('only the crop box, the part a viewer shows, is embedded', async () => {
    const label = await onlyDrawn((await carrierLabelFiles(doc('pdf', await carrierPdf(612, 792, { crop: [0, 360, 288, 432] })))('pdf_6x4')).content, LABEL);
    expect(label).toMatchObject({ kind: 'page', width: 288, height: 432 });
    expectRect(cover(label), { x: 0, y: 0, width: 288, height: 432 });
  });
});

describe('carrier ZPL', () => {
  const ZPL = '^XA\n^CI28\n^FO50,50^A0N,40,40^FDUPS Ground — Zoë^FS\n^FO50,120^BCN,100,Y,N,N^FD1Z999AA10123456784^FS\n^XZ\n';

  it('is served byte for byte from the ZPL stored beside an image label', async () => {
    const gif = doc('gif', await picture(120, 180).gif().toBuffer());
    const file = await carrierLabelFiles(gif, doc('zpl', ZPL))('zpl');
    expect(file.contentType).toBe('application/zpl');
    expect(file.content.equals(Buffer.from(ZPL))).toBe(true);
    expect(file.content.toString('utf8').startsWith('^XA')).toBe(true);
  });

  it('is served from the label itself when the label was bought as ZPL', async () => {
    const file = await carrierLabelFiles(doc('zpl', ZPL))('zpl');
    expect(file).toEqual({ contentType: 'application/zpl', content: Buffer.from(ZPL) });
  });

  it('asked of an image label with no ZPL stored, says the ZPL is to be recovered from the carrier', async () => {
    const files = carrierLabelFiles(doc('gif', await picture(120, 180).gif().toBuffer()));
    const error = await files('zpl').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CarrierDocumentMissingError);
    expect(error).toMatchObject({ format: 'zpl', missing: 'zpl', message: expect.stringMatching(/recover the ZPL from the carrier/) });
    // The PDFs still come from the image.
    expect((await files('pdf_6x4')).contentType).toBe('application/pdf');
  });

  it('a PDF asked of a ZPL-only label says the image is to be recovered', async () => {
    const error = await carrierLabelFiles(doc('zpl', ZPL))('pdf_a4').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CarrierDocumentMissingError);
    expect(error).toMatchObject({ format: 'pdf_a4', missing: 'image' });
  });
});

describe('carrier documents that cannot be read', () => {
  it.each([
    ['a format we do not take', () => ({ format: 'epl', contentBase64: Buffer.from('N\nP1\n').toString('base64') }) as unknown as CarrierDocument, 'pdf_6x4'],
    ['a format we do not take, asked for ZPL', () => ({ format: 'svg', contentBase64: Buffer.from('<svg/>').toString('base64') }) as unknown as CarrierDocument, 'zpl'],
    ['an empty document', () => doc('gif', ''), 'pdf_6x4'],
    ['a GIF that is not an image', () => doc('gif', 'GIF89a and then nothing'), 'pdf_6x4'],
    ['a TIFF that is not an image', () => doc('tiff', Buffer.from([0x49, 0x49, 0x2a, 0x00, 1, 2, 3])), 'pdf_a4'],
    ['a PDF that is not a PDF', () => doc('pdf', 'not a pdf at all'), 'pdf_6x4'],
    ['ZPL with no label format in it', () => doc('zpl', 'hello printer'), 'zpl'],
  ] as const)('%s is refused with UnsupportedCarrierDocumentError', async (_, make, format) => {
    await expect(carrierLabelFiles(make())(format)).rejects.toBeInstanceOf(UnsupportedCarrierDocumentError);
  });

  it('a "ZPL" document stored beside the label that is not ZPL is refused', async () => {
    const gif = doc('gif', await picture(120, 180).gif().toBuffer());
    await expect(carrierLabelFiles(gif, doc('png', await picture(12, 18).png().toBuffer()))('zpl')).rejects.toBeInstanceOf(UnsupportedCarrierDocumentError);
  });
});
