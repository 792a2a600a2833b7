import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimLabel } from './state.js';

/** The USPS simulator's small HTTP helpers and the label files it serves. */

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** JSON, or a form body (the token endpoint takes either). */
export function parseBody(text: string, contentType: string | undefined): unknown {
  if ((contentType ?? '').includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  return JSON.parse(text);
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** A response object that does the work of answering and then drops the connection instead. */
export function lostAnswer(res: ServerResponse): ServerResponse {
  return new Proxy(res, {
    get(target, prop, receiver) {
      if (prop === 'writeHead') return () => target;
      if (prop === 'end') return () => target.socket?.destroy();
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

export function canonical(value: unknown): string {
  return JSON.stringify(value);
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

export function disputeId(l: SimLabel): string {
  return String(100000 + Number(l.trackingNumber.slice(-5)));
}

const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const ONE_PIXEL_GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

/** The label image in the type asked for: a small real file of that type, base64. */
export function labelImage(l: Pick<SimLabel, 'imageType' | 'trackingNumber'>): string {
  if (l.imageType === 'PNG') return ONE_PIXEL_PNG;
  if (l.imageType === 'GIF') return ONE_PIXEL_GIF;
  if (l.imageType.startsWith('ZPL')) {
    return Buffer.from(`^XA^CI28^FO40,40^A0N,40,40^FDUSPS^FS^FO40,120^BCN,120,Y,N,N^FD${l.trackingNumber}^FS^XZ\n`).toString('base64');
  }
  const pdf = `%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 288 432]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n% ${l.trackingNumber}\n`;
  return Buffer.from(pdf).toString('base64');
}
