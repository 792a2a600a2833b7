import { describe, expect, it } from 'vitest';
import {
  contentTypeFor,
  LABEL_FORMATS,
  renderLabel,
  type LabelInput,
} from '../../labels/render/index.js';
import { fitText, formatDate, formatWeight, helvetica, toWinAnsi } from '../../labels/render/text.js';
import { barsToModules, decodeCode128 } from './code128.js';
import { decodeUtf8, labelInput } from './fixtures.js';
import { barcodeBars, inspectPdf } from './pdf-inspect.js';

const long = (seed: string): string => seed.repeat(Math.ceil(200 / seed.length)).slice(0, 200);

const unusual: Record<string, Partial<LabelInput>> = {
  '200-character names and lines': {
    from: { name: long('Sender Name '), line1: long('Long Street '), line2: long('x'), city: long('City'), postcode: long('9'), country: 'DE' },
    to: { name: long('Recipientname'), line1: long('Line one '), line2: long('Line two '), city: long('Llanfairpwllgwyngyll'), postcode: '12345', country: 'GB' },
    carrierName: long('Carrier '),
    serviceName: long('Service '),
    reference: long('REF-'),
  },
  'non-Latin scripts and emoji': {
    to: { name: '山田 太郎 🙂', line1: 'Улица Пушкина 1', city: '東京', postcode: '100-0001', country: 'JP' },
    from: { name: 'Łukasz Żółć', line1: 'ул. Ленина', city: 'Łódź', postcode: '90-001', country: 'PL' },
    reference: 'طلب ٤٢',
  },
  'control characters and lone surrogates': {
    to: { name: 'Tab\there\nnewline\u0000nul', line1: 'bad \ud800 surrogate', city: 'Zürich\r\n', postcode: '8001', country: 'CH' },
  },
  'empty reference': { reference: '' },
  'no reference': { reference: null },
  'odd numbers and dates': { weightG: Number.NaN, date: 'not a date' },
  'sandbox with everything long': { sandbox: true, to: { name: long('W'), line1: long('W'), city: long('W'), state: 'NY', postcode: long('W'), country: 'US' } },
};

describe.each(Object.entries(unusual))('unusual input: %s', (_, overrides) => {
  it.each(LABEL_FORMATS)('renders %s without throwing, barcode intact', async (format) => {
    const input = labelInput(overrides);
    const bytes = await renderLabel(input, format);
    expect(bytes.length).toBeGreaterThan(0);
    if (format === 'zpl') {
      const zpl = decodeUtf8(bytes);
      expect(zpl.match(/\^XA/g)).toHaveLength(1);
      expect(zpl.match(/\^XZ/g)).toHaveLength(1);
      return;
    }
    const pdf = await inspectPdf(bytes);
    expect(pdf.pageCount).toBe(1);
    expect(decodeCode128(barsToModules(barcodeBars(pdf.rects)))).toBe(input.trackingNumber);
    expect(pdf.text).toContain(input.trackingNumber);
  });
});

describe('label text folding', () => {
  it('keeps what WinAnsi can print and replaces the rest', () => {
    expect(toWinAnsi('Zoë Müller — café')).toBe('Zoë Müller — café');
    expect(toWinAnsi('漢字')).toBe('??');
    expect(toWinAnsi('Łukasz Dvořák')).toBe('Lukasz Dvorák');
    expect(toWinAnsi(' a\t\nb  c ')).toBe('a b c');
  });

  it('cuts long text to the width with an ellipsis', () => {
    const cut = fitText(long('Abc '), helvetica, 10, 100);
    expect(cut.endsWith('\u2026')).toBe(true);
    expect(helvetica.widthOf(cut, 10)).toBeLessThanOrEqual(100);
    expect(fitText('Short', helvetica, 10, 100)).toBe('Short');
  });

  it('shows weights and dates as on a label', () => {
    expect(formatWeight(850)).toBe('850 g');
    expect(formatWeight(1250)).toBe('1.25 kg');
    expect(formatDate('2024-05-01T23:59:59+02:00')).toBe('2024-05-01');
    expect(formatDate('2024-05-01')).toBe('2024-05-01');
  });

  it('shows sanitised names in the PDF text', async () => {
    const input = labelInput({ to: { name: '漢字 Łukasz', line1: 'x', city: 'Łódź', postcode: '90-001', country: 'PL' } });
    const { text } = await inspectPdf(await renderLabel(input, 'pdf_6x4'));
    expect(text).toContain('?? Lukasz');
    expect(text).toContain('90-001 Lódz');
  });
});

describe('label API', () => {
  it('lists the formats and their content types', () => {
    expect([...LABEL_FORMATS]).toEqual(['pdf_6x4', 'pdf_a4', 'zpl']);
    expect(contentTypeFor('pdf_6x4')).toBe('application/pdf');
    expect(contentTypeFor('pdf_a4')).toBe('application/pdf');
    expect(contentTypeFor('zpl')).toBe('application/zpl');
  });

  it('refuses a tracking number that a barcode cannot carry', async () => {
    await expect(renderLabel(labelInput({ trackingNumber: 'ABC漢' }), 'pdf_6x4')).rejects.toThrow(RangeError);
    await expect(renderLabel(labelInput({ trackingNumber: '' }), 'zpl')).rejects.toThrow(RangeError);
  });
});
