import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { refuseBadText } from '../hardening.js';
import type { Form } from './forms.js';

/**
 * `multipart/form-data` (RFC 7578) as a browser posts a form with a file input, read by
 * `@fastify/multipart` (busboy, one pass over the body) within limits that fit the one form that
 * posts it, the orders upload: a token, a label format and one file. Its text fields become the
 * request's `Form`, its files are kept apart: the framework checks a form's text for control
 * characters (api/hardening.ts), and a file's line breaks are its content, not a bad field.
 */
export interface UploadedFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The files of a `multipart/form-data` form, kept apart from its text fields. */
    webUploads?: Record<string, UploadedFile>;
  }
}

/** A form refused for its size or its shape: the status, and what the error page says. */
export class FormRefused extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

const sizeOf = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`);

/** The message of the error page for a form the framework or the parser refused, if it is one. */
export function formRefusal(error: Error & { code?: string; statusCode?: number }, bodyLimit: number | undefined): string | undefined {
  if (error instanceof FormRefused) return error.message;
  if (error.code === 'FST_PARTS_LIMIT' || error.code === 'FST_FIELDS_LIMIT' || error.code === 'FST_FILES_LIMIT') {
    return 'The form has more fields than its page sends. Go back and try again.';
  }
  if (error.statusCode === 413) return `The form is over ${sizeOf(bodyLimit ?? 64 * 1024)}. Go back and try again.`;
  return undefined;
}

/**
 * Registers the multipart reader in the plugin that owns the upload route, within `maxBytes` for
 * the whole body. A text field of the form is a token or a code, far under 1 KiB; a field or part
 * past the limits refuses the form at once (413), so the parser never gathers more than the form has.
 */
export async function registerUploads(app: FastifyInstance, maxBytes: number): Promise<void> {
  await app.register(multipart, {
    limits: { parts: 10, fields: 8, files: 1, fieldNameSize: 100, fieldSize: 1024, headerPairs: 10, fileSize: maxBytes },
  });
}

/**
 * Route onRequest hook of an upload route, after the session check and before a byte of the body
 * is read: a multipart body must say its length (a browser always does), and that length must be
 * within `maxBytes`, so that preamble and epilogue text, which the parser skips, cannot make it
 * read more than the limit either.
 */
export function uploadLength(maxBytes: number) {
  return async (request: FastifyRequest): Promise<void> => {
    if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '')) return;
    const declared = request.headers['content-length'];
    if (declared === undefined || request.headers['transfer-encoding'] !== undefined) {
      throw new FormRefused(411, 'The form was sent without its length (Content-Length). Go back and try again.');
    }
    if (Number(declared) > maxBytes) throw new FormRefused(413, `The form is over ${sizeOf(maxBytes)}. Go back and try again.`);
  };
}

/**
 * Route preValidation hook of an upload route whose files may hold `maxBytes`: reads a multipart
 * body into `request.body` (the text fields) and `request.webUploads` (the files), then checks the
 * text as the framework checks every form. A body the parser cannot read is a 400; a limit passed, a 413.
 */
export function readUpload(maxBytes: number) {
  return async (request: FastifyRequest): Promise<void> => {
    if (!request.isMultipart()) return;
    const form: Form = Object.create(null);
    const files: Record<string, UploadedFile> = Object.create(null);
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          files[part.fieldname] = { filename: part.filename, contentType: part.mimetype, content: await part.toBuffer() };
          continue;
        }
        if (part.fieldnameTruncated || part.valueTruncated) throw new FormRefused(413, 'A field of the form is too long. Go back and try again.');
        // A part may declare itself JSON, which the reader then parses: a form's field is text only.
        if (typeof part.value !== 'string') throw new FormRefused(400, 'The form could not be read. Go back and try again.');
        const held = form[part.fieldname];
        if (held === undefined) form[part.fieldname] = part.value;
        else if (Array.isArray(held)) held.push(part.value);
        else form[part.fieldname] = [held, part.value];
      }
    } catch (err) {
      // The parser is fed no more of the body: once a limit is passed the form is refused whatever
      // follows, and the reader would otherwise go on parsing the rest of it, part by part.
      request.raw.unpipe();
      if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new FormRefused(413, `The file is over ${sizeOf(maxBytes)}. Go back and try again.`);
      // The reader's own refusals carry their status; busboy's (a malformed body) do not.
      if ((err as { statusCode?: number }).statusCode) throw err;
      throw new FormRefused(400, 'The form could not be read. Go back and try again.');
    }
    request.body = form;
    request.webUploads = files;
    await refuseBadText(request);
  };
}
