import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { formatAmount, parseAmount, type Address, type Customs } from '../domain/index.js';

/** What a commercial invoice shows: the shipment, its two parties and its customs declaration. */
export interface InvoiceInput {
  shipmentId: string;
  trackingNumber: string;
  carrierName: string;
  serviceName: string;
  from: Address;
  to: Address;
  customs: Customs;
  /** The day it was issued (ISO 8601). */
  date: string;
  weightG: number;
  sandbox: boolean;
}

const A4 = { width: 595.28, height: 841.89 } as const;
const MARGIN = 40;

/**
 * The standard fonts write WinAnsi only: a character outside it (a Polish or Greek letter, CJK) is
 * shown as `?` rather than failing the document. Carriers' own invoices are their own.
 */
const printable = (text: string) => text.normalize('NFC').replace(/[^\x20-\x7e\u00a0-\u00ff]/g, '?');

const addressLines = (a: Address) =>
  [a.company, a.name, a.line1, a.line2, [a.city, a.state, a.postcode].filter(Boolean).join(' '), a.country, a.phone, a.email].filter((l): l is string => Boolean(l));

/**
 * A commercial invoice on one A4 page (more when the lines need them), drawn for the sandbox and
 * the simulated carriers, whose labels the platform draws too (contract: Customs). The invoice
 * number is the declaration's, or the shipment id where it gives none.
 */
export async function commercialInvoicePdf(input: InvoiceInput): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Commercial invoice ${input.shipmentId}`);
  doc.setCreationDate(new Date(input.date));
  doc.setModificationDate(new Date(input.date));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  let page = doc.addPage([A4.width, A4.height]);
  let y = A4.height - MARGIN;
  const line = (text: string, o: { size?: number; x?: number; f?: PDFFont } = {}) => {
    const size = o.size ?? 9;
    if (y < MARGIN + size) {
      page = doc.addPage([A4.width, A4.height]);
      y = A4.height - MARGIN;
    }
    page.drawText(printable(text), { x: o.x ?? MARGIN, y, size, font: o.f ?? font });
    y -= size + 4;
  };
  const { customs } = input;
  line(input.sandbox ? 'COMMERCIAL INVOICE (SANDBOX: NOT FOR CUSTOMS)' : 'COMMERCIAL INVOICE', { size: 16, f: bold });
  y -= 6;
  line(`Invoice number: ${customs.invoice_number ?? input.shipmentId}`);
  line(`Date: ${input.date.slice(0, 10)}`);
  line(`Shipment: ${input.shipmentId}   Tracking number: ${input.trackingNumber}`);
  line(`Carrier: ${input.carrierName}, ${input.serviceName}`);
  line(`Reason for export: ${customs.contents_type.replace('_', ' ')}${customs.contents_explanation ? ` (${customs.contents_explanation})` : ''}`);
  line(`Terms of sale: ${customs.incoterm}   If undeliverable: ${customs.non_delivery}   Total weight: ${input.weightG} g`);
  if (customs.eel_pfc) line(`EEL/PFC: ${customs.eel_pfc}`);
  for (const id of customs.tax_ids ?? []) line(`${id.owner === 'sender' ? 'Sender' : 'Recipient'} ${id.type.toUpperCase()}: ${id.number}`);
  y -= 8;
  const top = y;
  drawParty(page, bold, font, 'SENDER / EXPORTER', addressLines(input.from), MARGIN, top);
  drawParty(page, bold, font, 'SOLD TO / CONSIGNEE', addressLines(input.to), A4.width / 2, top);
  y = top - 14 * 10;
  line('Description                          Qty   Value        Weight   HS code      Origin  SKU', { f: bold });
  let total = 0;
  for (const item of customs.items) {
    total += parseAmount(item.value) ?? 0;
    const cells = [
      item.description.padEnd(35).slice(0, 35),
      String(item.quantity).padStart(5),
      `${item.value} ${customs.currency}`.padStart(12),
      `${item.weight_g} g`.padStart(8),
      (item.hs_tariff_number ?? '').padEnd(12),
      item.origin_country.padEnd(6),
      item.sku ?? '',
    ];
    line(cells.join(' '), { size: 8 });
  }
  y -= 6;
  line(`Total value: ${formatAmount(total)} ${customs.currency}`, { f: bold });
  y -= 12;
  line('I declare that the information on this invoice is true and correct.');
  line(`Signed: ${customs.signer}`);
  return doc.save({ useObjectStreams: false });
}

function drawParty(page: PDFPage, bold: PDFFont, font: PDFFont, title: string, lines: string[], x: number, top: number): void {
  page.drawText(title, { x, y: top, size: 9, font: bold });
  lines.forEach((text, i) => page.drawText(printable(text).slice(0, 48), { x, y: top - 13 * (i + 1), size: 9, font }));
}
