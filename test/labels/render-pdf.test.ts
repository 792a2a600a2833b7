import { describe, expect, it } from 'vitest';
import { renderLabel, type LabelFormat } from '../../labels/render/index.js';
import { barsToModules, decodeCode128 } from './code128.js';
import { labelInput, TRACKING_SHAPES } from './fixtures.js';
import { barcodeBars, inspectPdf } from './pdf-inspect.js';

const PAGE_SIZES: Record<Exclude<LabelFormat, 'zpl'>, { width: number; height: number }> = {
  pdf_6x4: { width: 288, height: 432 },
  pdf_a4: { width: 595.28, height: 841.89 },
};
const PDF_FORMATS = Object.keys(PAGE_SIZES) as Exclude<LabelFormat, 'zpl'>[];

describe.each(PDF_FORMATS)('%s label', (format) => {
  it('is a PDF of one page of the exact size', async () => {
    const bytes = await renderLabel(labelInput(), format);
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
    const pdf = await inspectPdf(bytes);
    expect(pdf.pageCount).toBe(1);
    expect(pdf.width).toBeCloseTo(PAGE_SIZES[format].width, 2);
    expect(pdf.height).toBeCloseTo(PAGE_SIZES[format].height, 2);
  });

  it('shows addresses, carrier, service, reference, weight, date and tracking number as text', async () => {
    const input = labelInput();
    const { text } = await inspectPdf(await renderLabel(input, format));
    for (const expected of [
      input.trackingNumber,
      'ORDER-4711',
      'Marseille',
      '13001',
      'Jean Dupont',
      '12 Rue de la Paix',
      'Bâtiment B',
      'FR',
      'Zoë Müller',
      'Hauptstraße 5',
      'Berlin',
      '10115',
      'DE',
      'Acme Parcel',
      'Express 24h',
      '1.25 kg',
      '2024-05-01',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('SANDBOX');
  });

  it('prints the state after the city where the address has one', async () => {
    const to = { name: 'Pat Lee', line1: '350 5th Ave', city: 'New York', state: 'NY', postcode: '10118', country: 'US' };
    const from = { name: 'Ann Roy', line1: '1 Rue Sainte-Catherine', city: 'Montreal', state: 'QC', postcode: 'H3B 1A7', country: 'CA' };
    const { text } = await inspectPdf(await renderLabel(labelInput({ to, from }), format));
    expect(text).toContain('10118 New York NY');
    expect(text).toContain('H3B 1A7 Montreal QC');
    const plain = await inspectPdf(await renderLabel(labelInput(), format));
    expect(plain.text).toContain('13001 Marseille');
    expect(plain.text).not.toContain('13001 Marseille ');
  });

  it('marks sandbox labels as not for shipping', async () => {
    const { text } = await inspectPdf(await renderLabel(labelInput({ sandbox: true }), format));
    expect(text).toContain('SANDBOX \u2014 NOT FOR SHIPPING');
  });

  it.each(TRACKING_SHAPES)('draws %s as a Code 128 barcode of vector bars that decodes back', async (tracking) => {
    const pdf = await inspectPdf(await renderLabel(labelInput({ trackingNumber: tracking }), format));
    const bars = barcodeBars(pdf.rects);
    expect(decodeCode128(barsToModules(bars))).toBe(tracking);

    // Scanners need a quiet zone of 10 modules each side, inside the 4-inch label.
    const module = Math.min(...bars.map((b) => b.width));
    const left = Math.min(...bars.map((b) => b.x));
    const right = Math.max(...bars.map((b) => b.x + b.width));
    const labelLeft = (pdf.width - 288) / 2;
    expect(left - 10 * module).toBeGreaterThanOrEqual(labelLeft - 0.01);
    expect(right + 10 * module).toBeLessThanOrEqual(labelLeft + 288 + 0.01);
  });

  it('gives the same bytes for the same input, dated from the purchase date', async () => {
    const input = labelInput();
    const first = await renderLabel(input, format);
    const second = await renderLabel(structuredClone(input), format);
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
    const raw = Buffer.from(first).toString('latin1');
    expect(raw).toContain('D:20240501101112Z');
    expect(raw).not.toContain('pdf-lib');
  });
});

describe('pdf_6x4 barcode size', () => {
  it('keeps bars a whole number of 203 dpi printer dots wide', async () => {
    const pdf = await inspectPdf(await renderLabel(labelInput(), 'pdf_6x4'));
    const dot = 72 / 203;
    for (const bar of barcodeBars(pdf.rects)) {
      const dots = bar.width / dot;
      expect(Math.abs(dots - Math.round(dots))).toBeLessThan(0.01);
    }
  });
});
