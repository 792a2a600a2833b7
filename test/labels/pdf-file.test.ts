import { describe, expect, it } from 'vitest';
import { LABEL_FORMATS, labelRenderer, renderLabel } from '../../labels/render/index.js';
import { helvetica, helveticaBold } from '../../labels/render/text.js';
import { labelInput } from './fixtures.js';
import { inspectPdf } from './pdf-inspect.js';

// pdfjs rebuilds a broken cross-reference table without a word, so the file's structure is
// checked here on the bytes, the way a strict reader (or a print server) would read them.
const raw = async (format: 'pdf_6x4' | 'pdf_a4', input = labelInput()): Promise<string> =>
  Buffer.from(await renderLabel(input, format)).toString('latin1');

describe.each(['pdf_6x4', 'pdf_a4'] as const)('%s file structure', (format) => {
  it('has an xref table whose offsets point at their objects, and a trailer that finds it', async () => {
    const pdf = await raw(format);
    const trailer = /trailer\n<< \/Size (\d+) \/Root (\d+) 0 R \/Info (\d+) 0 R >>\nstartxref\n(\d+)\n%%EOF\n$/.exec(pdf);
    expect(trailer, 'trailer').not.toBeNull();
    const [, size, root, info, xrefAt] = trailer!.map(Number);
    expect(pdf.slice(xrefAt, xrefAt + 5)).toBe('xref\n');
    const table = /^xref\n0 (\d+)\n((?:\d{10} \d{5} [fn] \n)+)trailer/.exec(pdf.slice(xrefAt));
    expect(table, 'xref table').not.toBeNull();
    expect(Number(table![1])).toBe(size);
    const entries = table![2]!.match(/[\s\S]{20}/g)!;
    expect(entries).toHaveLength(size);
    expect(entries[0]).toBe('0000000000 65535 f \n');
    entries.slice(1).forEach((entry, i) => {
      const offset = Number(entry.slice(0, 10));
      expect(pdf.slice(offset).startsWith(`${i + 1} 0 obj\n`), `object ${i + 1} at ${offset}`).toBe(true);
    });
    expect(pdf).toMatch(new RegExp(`\\n${root} 0 obj\\n<< /Type /Catalog `));
    expect(pdf).toMatch(new RegExp(`\\n${info} 0 obj\\n<< /Title \\(Shipping label ACM123456789012\\) `));
  });

  it('names the two standard fonts with WinAnsi encoding rather than embedding them', async () => {
    const pdf = await raw(format);
    expect(pdf).toContain('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
    expect(pdf).toContain('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
    expect(pdf).not.toMatch(/FontFile|FontDescriptor/);
    const stream = /\/Length (\d+) \/Filter \/FlateDecode >>\nstream\n/.exec(pdf);
    expect(stream).not.toBeNull();
    const start = stream!.index + stream![0].length;
    expect(pdf.slice(start + Number(stream![1]), start + Number(stream![1]) + 11)).toBe('\nendstream\n');
  });
});

describe('label text in PDF strings', () => {
  it('escapes parentheses and backslashes and keeps WinAnsi letters', async () => {
    const reference = 'A (b) \\ c) ( Zoë — “q”';
    const { text } = await inspectPdf(await renderLabel(labelInput({ reference }), 'pdf_6x4'));
    expect(text).toContain(`Ref: ${reference}`);
  });
});

describe('text widths', () => {
  it('are the AFM advance widths with kerning pairs', () => {
    // Helvetica: A 667, V 667, pair A V -70; Helvetica-Bold: A 722, V 667, pair A V -80.
    expect(helvetica.widthOf('AV', 10)).toBeCloseTo(12.64, 10);
    expect(helveticaBold.widthOf('AV', 10)).toBeCloseTo(13.09, 10);
    expect(helvetica.widthOf('VA', 10)).toBeCloseTo(helvetica.widthOf('V', 10) + helvetica.widthOf('A', 10) - 0.8, 10);
    expect(helvetica.widthOf('', 10)).toBe(0);
  });

  it('refuse characters the fonts cannot encode (the layout folds them first)', () => {
    expect(() => helvetica.widthOf('漢', 10)).toThrow(RangeError);
    expect(() => helvetica.widthOf('\ud83d\ude42', 10)).toThrow(RangeError);
  });
});

describe('labelRenderer', () => {
  it('gives each format the same bytes as renderLabel, from one layout', async () => {
    const input = labelInput({ sandbox: true });
    const render = labelRenderer(input);
    for (const format of LABEL_FORMATS) {
      expect(Buffer.from(await render(format)).equals(Buffer.from(await renderLabel(input, format))), format).toBe(true);
    }
  });

  it('rejects, like renderLabel, a tracking number a barcode cannot carry', async () => {
    const render = labelRenderer(labelInput({ trackingNumber: 'ABC漢' }));
    await expect(render('pdf_a4')).rejects.toThrow(RangeError);
    await expect(render('zpl')).rejects.toThrow(RangeError);
  });
});
