import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import type { LabelArt } from '../label-art.js';
import { labelZpl } from '../label-art.js';
import { labelFile } from '../label-files.js';

/**
 * The international label file the USPS simulator answers with: one PDF, the 4 × 6 in label page
 * followed by the customs form's pages, as USPS prints them together. The form is a CN22 (PS Form
 * 2976) for First-Class Package International under $400, else a CN23 (PS Form 2976-A), whose
 * item lines run onto further pages. In ZPL, each page is a further `^XA … ^XZ` format after the
 * label's.
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
  formPages(mailClass, form).forEach((lines, n, all) => drawForm(doc.addPage([288, 432]), { font, bold }, formLines(art, name, form, lines, `${n + 1}/${all.length}`)));
  return Buffer.from(await doc.save()).toString('base64');
}

/** The label and its customs pages as ZPL formats, base64. */
export function simInternationalZpl(art: LabelArt, mailClass: string, form: SimCustomsForm): string {
  const fd = (value: string) => value.replace(/[\^~]/g, ' ').slice(0, 60);
  const pages = formPages(mailClass, form).map((lines, n, all) => {
    const text = formLines(art, simCustomsFormName(mailClass, form), form, lines, `${n + 1}/${all.length}`);
    return ['^XA', '^CI28^PW812^LL1218', ...text.map((line, i) => `^FO30,${30 + i * 34}^A0N,26,26^FD${fd(line)}^FS`), '^XZ'].join('\n');
  });
  return Buffer.from([labelZpl(art), ...pages].join('\n')).toString('base64');
}

function formPages(mailClass: string, form: SimCustomsForm): Array<SimCustomsForm['contents']> {
  const perPage = simCustomsFormName(mailClass, form) === 'CN22' ? form.contents.length : CN23_LINES_PER_PAGE;
  const pages = Math.max(1, Math.ceil(form.contents.length / perPage));
  return Array.from({ length: pages }, (_, n) => form.contents.slice(n * perPage, (n + 1) * perPage));
}

function formLines(art: LabelArt, name: string, form: SimCustomsForm, lines: SimCustomsForm['contents'], pageOf: string): string[] {
  return [
    `CUSTOMS DECLARATION ${name} (PS FORM ${name === 'CN22' ? '2976' : '2976-A'})  ${pageOf}`,
    `${art.service}  ${art.trackingNumber}`,
    'FROM:',
    ...art.from,
    'TO:',
    ...art.to,
    `CATEGORY: ${form.customsContentType}   AES/ITN: ${form.AESITN}`,
    'DESCRIPTION  QTY  LB  USD  HS  ORIGIN',
    ...lines.map((c) => `${c.itemDescription}  ${c.itemQuantity}  ${c.itemTotalWeight}  ${c.itemTotalValue.toFixed(2)}  ${c.HSTariffNumber ?? '-'}  ${c.countryofOrigin}`),
    ...(form.nonDeliveryOption ? [`IF UNDELIVERABLE: ${form.nonDeliveryOption}`] : []),
    'I certify that the particulars given in this declaration are correct.',
  ];
}

function drawForm(page: PDFPage, fonts: { font: PDFFont; bold: PDFFont }, lines: string[]): void {
  let y = 410;
  lines.forEach((line, i) => {
    // The heading, the service line and the field names in bold.
    const isBold = i < 2 || /^(FROM|TO):$|^CATEGORY|^DESCRIPTION|^IF UNDELIVERABLE/.test(line);
    const size = i === 0 ? 8 : 7;
    page.drawText(line.replace(/[^\x20-\x7e]/g, '?').slice(0, 70), { x: 14, y, size, font: isBold ? fonts.bold : fonts.font });
    y -= size + 4;
  });
}
