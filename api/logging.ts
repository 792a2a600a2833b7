import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Keys and webhook secrets, wherever they turn up in a URL (a key pasted into a path, say). */
const SECRET_TEXT = /svc_(?:test|live)_|whsec_/i;
const SECRET_RUN = /(?:svc_(?:test|live)_|whsec_)[^/?&#\s]*/gi;
/** Query parameters that carry a credential: the signed label link's `sig`, and keys sent where they must not be. */
const SECRET_PARAM = /^(sig|signature|api_?key|key|access_token|token|secret|authorization|password)$/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The URL as logged: credential parameters replaced by `[redacted]`, any key or secret cut out. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  if (SECRET_TEXT.test(decoded(path))) path = decoded(path).replace(SECRET_RUN, '[redacted]');
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decoded(eq < 0 ? pair : pair.slice(0, eq));
      if (SECRET_TEXT.test(name)) return '[redacted]';
      if (SECRET_PARAM.test(name) || SECRET_TEXT.test(decoded(pair))) return `${pair.slice(0, eq < 0 ? pair.length : eq)}=[redacted]`;
      return pair;
    })
    .join('&');
  return `${path}?${query}`;
}

interface LoggableRequest {
  method?: string;
  url?: string;
  ip?: string;
  host?: string;
  headers?: Record<string, unknown>;
  socket?: { remoteAddress?: string };
}

/** What a log line says about a request: never its headers (Authorization) nor a secret in its URL. */
export function serializeRequest(req: LoggableRequest) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : undefined,
    host: req.host,
    remote_address: req.ip ?? req.socket?.remoteAddress,
    user_agent: typeof req.headers?.['user-agent'] === 'string' ? req.headers['user-agent'].slice(0, 200) : undefined,
  };
}

/**
 * One line per request, written when it completes, so it carries the key and account the
 * authenticator bound to the request's logger (an "incoming request" line cannot know them yet).
 */
export class ApiLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, response_time_ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
