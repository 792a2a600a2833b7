import bwipjs from 'bwip-js';
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';

/**
 * The simulated DHL Express documents, base64 as MyDHL API answers them: the transport label on
 * DHL's default 4 × 8 in page (ECOM26_84_001) with the waybill as a Code 128 barcode, and a
 * commercial invoice on A4 listing the export declaration's lines.
 */

export interface SimLabelArt {
  trackingNumber: string;
  productName: string;
  productCode: string;
  from: string[];
  to: string[];
  weightKg: number;
  reference: string;
}

const ascii = (text: string) => text.replace(/[^\x20-\x7e]/g, '?');

function writer(page: PDFPage, font: PDFFont, bold: PDFFont) {
  return (x: number, y: number, size: number, value: string, isBold = false) => page.drawText(ascii(value), { x, y, size, font: isBold ? bold : font });
}

/** A 288 × 576 pt page: DHL's 4 × 8 in transport label, text as text and a real Code 128. */
export async function simLabelPdf(art: SimLabelArt): Promise<string> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([288, 576]);
  const text = writer(page, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold));
  text(16, 548, 18, 'DHL EXPRESS', true);
  text(150, 550, 10, art.productName.toUpperCase(), true);
  page.drawRectangle({ x: 12, y: 536, width: 264, height: 2 });
  text(16, 520, 8, 'From:', true);
  art.from.slice(0, 5).forEach((line, i) => text(16, 508 - i * 10, 8, line));
  page.drawRectangle({ x: 12, y: 452, width: 264, height: 1 });
  text(16, 436, 9, 'To:', true);
  art.to.slice(0, 5).forEach((line, i) => text(16, 420 - i * 14, 12, line, i === 0));
  page.drawRectangle({ x: 12, y: 338, width: 264, height: 2 });
  text(16, 318, 28, art.productCode, true);
  text(70, 318, 10, `Weight: ${art.weightKg.toFixed(2)} kg`);
  text(70, 304, 10, `Ref: ${art.reference}`);
  const png = await bwipjs.toBuffer({ bcid: 'code128', text: art.trackingNumber, scale: 2, height: 18, includetext: false });
  const image = await doc.embedPng(png);
  const width = Math.min(248, image.width * 0.5);
  page.drawImage(image, { x: (288 - width) / 2, y: 180, width, height: 90 });
  text(60, 160, 14, `WAYBILL ${art.trackingNumber.replace(/(\d{2})(\d{4})(\d{4})/, '$1 $2 $3')}`, true);
  page.drawRectangle({ x: 12, y: 140, width: 264, height: 2 });
  return Buffer.from(await doc.save({ useObjectStreams: false })).toString('base64');
}

export interface SimInvoice {
  number: string;
  date: string;
  trackingNumber: string;
  currency: string;
  shipper: string[];
  receiver: string[];
  lines: Array<{ description: string; quantity: number; price: number; commodity?: string; origin: string }>;
  signer?: string;
}

/** A one-page A4 commercial invoice, as DHL's COMMERCIAL_INVOICE_P_10 lays out the same facts. */
export async function simInvoicePdf(invoice: SimInvoice): Promise<string> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([595.28, 841.89]);
  const text = writer(page, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold));
  text(40, 790, 18, 'COMMERCIAL INVOICE', true);
  text(40, 770, 10, `Invoice ${invoice.number}   Date ${invoice.date}   Waybill ${invoice.trackingNumber}`);
  text(40, 740, 10, 'Shipper', true);
  invoice.shipper.forEach((line, i) => text(40, 726 - i * 12, 9, line));
  text(320, 740, 10, 'Receiver', true);
  invoice.receiver.forEach((line, i) => text(320, 726 - i * 12, 9, line));
  let y = 640;
  text(40, y, 9, 'Description', true);
  text(300, y, 9, 'Qty', true);
  text(340, y, 9, 'Unit value', true);
  text(420, y, 9, 'HS code', true);
  text(500, y, 9, 'Origin', true);
  let total = 0;
  for (const line of invoice.lines.slice(0, 40)) {
    y -= 14;
    total += line.price * line.quantity;
    text(40, y, 9, line.description.slice(0, 48));
    text(300, y, 9, String(line.quantity));
    text(340, y, 9, `${line.price.toFixed(2)} ${invoice.currency}`);
    text(420, y, 9, line.commodity ?? '');
    text(500, y, 9, line.origin);
  }
  text(340, y - 24, 10, `Total ${total.toFixed(2)} ${invoice.currency}`, true);
  if (invoice.signer) text(40, y - 60, 10, `Signed: ${invoice.signer}`);
  return Buffer.from(await doc.save({ useObjectStreams: false })).toString('base64');
}

let warm: Promise<unknown> | undefined;

/** Loads the PDF writer's fonts and the barcode renderer once, off any purchase's path. */
export function warmUpDhlDocuments(): void {
  warm ??= simLabelPdf({ trackingNumber: '0000000000', productName: 'WARM UP', productCode: 'P', from: ['A'], to: ['B'], weightKg: 1, reference: '' }).catch(() => undefined);
}
