import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import type { LabelArt } from '../label-art.js';
import { labelFile } from '../label-files.js';

/**
 * The international label file the USPS simulator answers with: one PDF, the 4 × 6 in label page
 * followed by the customs form's pages, as USPS prints them together. The form is a CN22 (PS Form
 * 2976) for First-Class Package International under $400, else a CN23 (PS Form 2976-A), whose
 * item lines run onto further pages.
 */

export interface SimCustomsForm {
  customsContentType: string;
  AESITN: string;
  contents: Array<{ itemDescription: string; itemQuantity: number; itemTotalValue: number; itemTotalWeight: number; HSTariffNumber?: string; countryofOrigin: string }>;
  nonDeliveryOption?: string;
}

/** Item lines on one CN23 page. */
const CN23_LINES_PER_PAGE = 5;
const CN22_VALUE_LIMIT = 400;

export function simCustomsFormName(mailClass: string, form: SimCustomsForm): 'CN22' | 'CN23' {
  const total = form.contents.reduce((sum, c) => sum + c.itemTotalValue, 0);
  return mailClass.startsWith('FIRST-CLASS') && total < CN22_VALUE_LIMIT ? 'CN22' : 'CN23';
}

/** The label and its customs pages, base64, as `labelImage` carries them. */
export async function simInternationalPdf(art: LabelArt, mailClass: string, form: SimCustomsForm): Promise<string> {
  const doc = await PDFDocument.load(Buffer.from(await labelFile(art, 'PDF'), 'base64'));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const name = simCustomsFormName(mailClass, form);
  const perPage = name === 'CN22' ? form.contents.length : CN23_LINES_PER_PAGE;
  const pages = Math.max(1, Math.ceil(form.contents.length / perPage));
  for (let n = 0; n < pages; n++) {
    const page = doc.addPage([288, 432]);
    drawForm(page, { font, bold }, art, name, form, form.contents.slice(n * perPage, (n + 1) * perPage), `${n + 1}/${pages}`);
  }
  return Buffer.from(await doc.save()).toString('base64');
}

function drawForm(page: PDFPage, fonts: { font: PDFFont; bold: PDFFont }, art: LabelArt, name: string, form: SimCustomsForm, lines: SimCustomsForm['contents'], pageOf: string): void {
  let y = 410;
  const text = (value: string, size = 7, isBold = false, x = 14) => {
    page.drawText(value.replace(/[^\x20-\x7e]/g, '?').slice(0, 70), { x, y, size, font: isBold ? fonts.bold : fonts.font });
    y -= size + 4;
  };
  text(`CUSTOMS DECLARATION ${name} (PS FORM ${name === 'CN22' ? '2976' : '2976-A'})  ${pageOf}`, 9, true);
  text(`${art.service}  ${art.trackingNumber}`, 8, true);
  text('FROM:', 7, true);
  art.from.forEach((l) => text(l));
  text('TO:', 7, true);
  art.to.forEach((l) => text(l));
  text(`CATEGORY: ${form.customsContentType}   AES/ITN: ${form.AESITN}`, 7, true);
  text('DESCRIPTION  QTY  LB  USD  HS  ORIGIN', 7, true);
  for (const c of lines) {
    text(`${c.itemDescription}  ${c.itemQuantity}  ${c.itemTotalWeight}  ${c.itemTotalValue.toFixed(2)}  ${c.HSTariffNumber ?? '-'}  ${c.countryofOrigin}`);
  }
  if (form.nonDeliveryOption) text(`IF UNDELIVERABLE: ${form.nonDeliveryOption}`, 7, true);
  text('I certify that the particulars given in this declaration are correct.', 6);
}
