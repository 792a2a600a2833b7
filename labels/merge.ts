import { PDFDocument } from 'pdf-lib';

type LabelFile = { contentType: string; content: Uint8Array };

/**
 * A batch's one label file from its labels' files, in the order given: PDF pages copied page by page
 * into one document, or ZPL documents (`^XA` … `^XZ` each) one after another, which a printer takes
 * as a stream of labels.
 */
export async function mergeLabelFiles(format: 'pdf_6x4' | 'pdf_a4' | 'zpl', files: LabelFile[]): Promise<{ contentType: string; content: Buffer }> {
  if (format === 'zpl') {
    const text = files.map((f) => Buffer.from(f.content).toString('utf8').trim()).join('\n');
    return { contentType: 'application/zpl', content: Buffer.from(text ? `${text}\n` : '', 'utf8') };
  }
  const merged = await PDFDocument.create();
  for (const file of files) {
    const source = await PDFDocument.load(file.content);
    const pages = await merged.copyPages(source, source.getPageIndices());
    for (const page of pages) merged.addPage(page);
  }
  return { contentType: 'application/pdf', content: Buffer.from(await merged.save()) };
}
