import type { Form } from './forms.js';

/**
 * `multipart/form-data` (RFC 7578) as a browser posts a form with a file input: the text fields as a
 * `Form`, the files apart. Files are kept off the form the framework checks for control characters
 * (api/hardening.ts), since a file's line breaks are its content, not a bad field.
 */
export interface UploadedFile {
  filename: string;
  contentType: string;
  content: Buffer;
}
export interface Multipart {
  fields: Form;
  files: Record<string, UploadedFile>;
}

export class MultipartError extends Error {}

/** The boundary of a `multipart/form-data` content type, quoted or not (RFC 2046 §5.1.1). */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}

/** A header's parameter (`name="csv"`), with the quoted-string escapes browsers write undone. */
function parameter(header: string, name: string): string | undefined {
  const m = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]*)`, 'i').exec(header);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

export function parseMultipart(body: Buffer, boundary: string): Multipart {
  const out: Multipart = { fields: {}, files: {} };
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  if (at < 0) throw new MultipartError('no part starts with the boundary');
  for (;;) {
    at += delimiter.length;
    // `--` after a delimiter closes the body.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return out;
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) throw new MultipartError('a boundary is not followed by a line break');
    at += 2;
    const headersEnd = body.indexOf('\r\n\r\n', at);
    if (headersEnd < 0) throw new MultipartError('a part has no end to its headers');
    const headers: Record<string, string> = {};
    for (const line of body.subarray(at, headersEnd).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headersEnd + 4);
    if (next < 0) throw new MultipartError('a part is not closed by the boundary');
    const content = body.subarray(headersEnd + 4, next);
    const disposition = headers['content-disposition'] ?? '';
    const name = parameter(disposition, 'name');
    if (!/^form-data\b/i.test(disposition) || name === undefined) throw new MultipartError('a part is not a form field');
    const filename = parameter(disposition, 'filename');
    if (filename !== undefined) {
      out.files[name] = { filename, contentType: headers['content-type'] ?? 'application/octet-stream', content: Buffer.from(content) };
    } else {
      const value = content.toString('utf8');
      const prev = out.fields[name];
      out.fields[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    at = next + 2;
  }
}
