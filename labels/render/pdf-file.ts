import { deflateSync } from 'node:zlib';

/**
 * A one-page PDF file written directly: catalog, page tree, one page, its content stream, the
 * standard fonts Helvetica and Helvetica-Bold (referenced by name, not embedded: every viewer and
 * printer driver has them), an Info dictionary, the xref table and the trailer. Labels need no
 * more, and building this as strings costs a small fraction of a general PDF library's object
 * model and serializer.
 */

/** Content stream names of the page's fonts. */
export const FONT_REGULAR = '/F1';
export const FONT_BOLD = '/F2';

export interface PdfInfo {
  title: string;
  producer: string;
  creator: string;
  /** Creation and modification date: a fixed one keeps the bytes a function of the input. */
  date: Date;
}

export interface PdfPage {
  width: number;
  height: number;
  /** The content stream as a binary string, one character per byte (WinAnsi text included). */
  content: string;
}

export function writePdf(page: PdfPage, info: PdfInfo): Uint8Array {
  // Deterministic: zlib gives the same bytes for the same input and settings.
  const stream = deflateSync(Buffer.from(page.content, 'latin1'));
  const when = pdfDate(info.date);

  // Every string part is binary (one character per byte), so lengths are byte offsets.
  const parts: (string | Uint8Array)[] = [];
  let length = 0;
  const add = (part: string | Uint8Array): void => {
    parts.push(part);
    length += part.length;
  };
  const offsets: number[] = [];
  const object = (body: string): void => {
    offsets.push(length);
    add(`${offsets.length} 0 obj\n${body}\nendobj\n`);
  };

  // The comment of bytes above 127 tells transfer tools the file is binary.
  add('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  object('<< /Type /Catalog /Pages 2 0 R >>');
  object('<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pdfNumber(page.width)} ${pdfNumber(page.height)}] ` +
      `/Resources << /Font << ${FONT_REGULAR} 5 0 R ${FONT_BOLD} 6 0 R >> >> /Contents 4 0 R >>`,
  );
  offsets.push(length);
  add(`4 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`);
  add(stream);
  add('\nendstream\nendobj\n');
  object(standardFont('Helvetica'));
  object(standardFont('Helvetica-Bold'));
  object(
    `<< /Title ${pdfText(info.title)} /Producer ${pdfText(info.producer)} /Creator ${pdfText(info.creator)} ` +
      `/CreationDate ${pdfText(when)} /ModDate ${pdfText(when)} >>`,
  );
  const infoObject = offsets.length;
  const xrefAt = length;
  const size = offsets.length + 1;
  // Each xref entry is exactly 20 bytes: 10-digit offset, 5-digit generation, keyword, space, LF.
  add(
    `xref\n0 ${size}\n0000000000 65535 f \n` +
      offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('') +
      `trailer\n<< /Size ${size} /Root 1 0 R /Info ${infoObject} 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`,
  );

  // A plain Uint8Array of its own, not a view into Buffer's shared pool: callers may hand it to
  // code that transfers (detaches) its buffer.
  const out = new Uint8Array(length);
  const writer = Buffer.from(out.buffer, out.byteOffset, out.length);
  let at = 0;
  for (const part of parts) {
    if (typeof part === 'string') writer.write(part, at, 'latin1');
    else out.set(part, at);
    at += part.length;
  }
  return out;
}

function standardFont(baseFont: string): string {
  return `<< /Type /Font /Subtype /Type1 /BaseFont /${baseFont} /Encoding /WinAnsiEncoding >>`;
}

/**
 * A number as content streams and dictionaries write it: at most three decimals (a thousandth of
 * a point is far below any printer's dot), never an exponent, so the bytes stay short and stable.
 */
export function pdfNumber(n: number): string {
  // String() never writes an exponent for the magnitudes of a page, and writes -0 as '0'.
  return String(Math.round(n * 1000) / 1000);
}

/** A literal string of binary (WinAnsi) text: backslash and parentheses escaped. */
export function pdfLiteral(binary: string): string {
  return `(${binary.replace(/[\\()]/g, '\\$&')})`;
}

/**
 * A text string for the Info dictionary: printable ASCII as a literal, anything else as UTF-16BE
 * with a byte order mark, which every reader decodes to the same text.
 */
function pdfText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return pdfLiteral(text);
  let hex = 'FEFF';
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0');
  return `<${hex}>`;
}

/** D:YYYYMMDDHHmmSSZ in UTC, as pdf-lib wrote the label dates before. */
function pdfDate(date: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return (
    `D:${String(date.getUTCFullYear()).padStart(4, '0')}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}` +
    `${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z`
  );
}
