// Reading the files the API serves: a download's status, type and bytes, and what pdf-lib sees in a PDF.
import { PDFDocument, PDFName, PDFStream } from 'pdf-lib';
import { request } from 'undici';

export async function download(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers });
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body: Buffer.from(await res.body.arrayBuffer()) };
}

/** What pdf-lib reads of a file: its first page's size and how many image XObjects it holds. */
export async function openPdf(bytes: Buffer) {
  const doc = await PDFDocument.load(bytes);
  const { width, height } = doc.getPage(0).getSize();
  const images = doc.context
    .enumerateIndirectObjects()
    .filter(([, object]) => object instanceof PDFStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'));
  return { pages: doc.getPageCount(), width, height, images: images.length };
}
