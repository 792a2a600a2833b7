import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { LabelArt } from '../label-art.js';
import { labelFile } from '../label-files.js';

/** The FedEx simulator's documents: the label in the image type asked for, and FedEx's commercial invoice. */

const LABEL_TYPES = { PNG: 'PNG', PDF: 'PDF', ZPLII: 'ZPL' } as const;

/** The label as Ship's `encodedLabel`: base64 of a 4 × 6 in PNG, PDF or ZPL II. */
export function labelDocument(art: LabelArt, imageType: keyof typeof LABEL_TYPES): Promise<string> {
  return labelFile(art, LABEL_TYPES[imageType]);
}

/** A party's lines as a label prints them, upper case. */
export function partyLines(party: any): string[] {
  const a = party?.address ?? {};
  const c = party?.contact ?? {};
  const place = [a.city, a.stateOrProvinceCode, a.postalCode].filter(Boolean).join(' ');
  return [c.personName, c.companyName, ...(a.streetLines ?? []), place, a.countryCode]
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .map((v) => v.toUpperCase());
}

/** The commercial invoice FedEx returns as a shipment document: one letter page of the request's customs. */
export async function invoicePdf(shipment: any, trackingNumber: string): Promise<string> {
  const customs = shipment.customsClearanceDetail;
  const invoice = customs.commercialInvoice ?? {};
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([612, 792]);
  const font = await doc.embedFont(StandardFonts.Courier);
  const bold = await doc.embedFont(StandardFonts.CourierBold);
  let y = 750;
  const line = (text: string, size = 10, f = font) => {
    page.drawText(text.replace(/[^\x20-\x7e]/g, '?'), { x: 40, y, size, font: f });
    y -= size + 4;
  };
  const number = (invoice.customerReferences ?? []).find((r: any) => r.customerReferenceType === 'INVOICE_NUMBER')?.value ?? '';
  line('COMMERCIAL INVOICE', 14, bold);
  line(`Invoice: ${number}   Date: ${shipment.shipDatestamp ?? ''}   AWB: ${trackingNumber}`);
  line(`Purpose: ${invoice.shipmentPurpose ?? ''}   Terms: ${invoice.termsOfSale ?? ''}   Duties: ${customs.dutiesPayment?.paymentType ?? ''}`);
  line(`Sender: ${partyLines(shipment.shipper).join(', ')}`, 9);
  line(`Recipient: ${partyLines(shipment.recipients[0]).join(', ')}`, 9);
  y -= 6;
  for (const c of customs.commodities) {
    line(`${c.partNumber ?? '-'}  ${c.description}  ${c.quantity ?? ''} ${c.quantityUnits ?? ''} x ${c.unitPrice?.amount ?? ''} = ${c.customsValue?.amount ?? ''} ${c.customsValue?.currency ?? ''}  ${c.countryOfManufacture ?? ''}`, 9);
  }
  line(`Total: ${customs.totalCustomsValue?.amount ?? ''} ${customs.totalCustomsValue?.currency ?? ''}`, 11, bold);
  line(`Signed: ${invoice.originatorName ?? ''}`);
  return Buffer.from(await doc.save({ useObjectStreams: false })).toString('base64');
}
