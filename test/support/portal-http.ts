// The portal's pages over plain HTTP, as a browser sends them: forms, a file upload (multipart), the
// session cookie, and signing in through the login page with its CSRF token.
import { request } from 'undici';

export interface Page {
  status: number;
  location: string | undefined;
  html: string;
  headers: Record<string, string | string[] | undefined>;
}

export type WebRequest = { cookie?: string; form?: Record<string, string>; file?: { name: string; text: string } };

export const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

export function portalHttp(baseUrl: () => string) {
  async function web(method: 'GET' | 'POST', path: string, o: WebRequest = {}): Promise<Page> {
    const headers: Record<string, string> = {};
    if (o.cookie) headers.cookie = o.cookie;
    let body: string | Buffer | undefined;
    if (o.file) {
      // What a browser posts for a form with a file input.
      const boundary = '----portalTestBoundary7MA4YWxkTrZu0gW';
      const parts = Object.entries(o.form ?? {}).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
      parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="csv"; filename="${o.file.name}"\r\nContent-Type: text/csv\r\n\r\n${o.file.text}\r\n`);
      body = Buffer.from(`${parts.join('')}--${boundary}--\r\n`);
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
    } else if (o.form) {
      body = new URLSearchParams(o.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await request(`${baseUrl()}${path}`, { method, headers, body });
    return { status: res.statusCode, location: res.headers.location as string | undefined, html: await res.body.text(), headers: res.headers };
  }

  /** Signs in through the login page; the session cookie and the CSRF token of `landing`. */
  async function signIn(email: string, password: string, landing = '/portal/batches') {
    const form = await web('GET', '/portal/login');
    const loginCookie = String(form.headers['set-cookie']).split(';')[0];
    const res = await web('POST', '/portal/login', { cookie: loginCookie, form: { _csrf: csrfIn(form.html), email, password } });
    const set = ([] as string[]).concat((res.headers['set-cookie'] as string[] | string | undefined) ?? []).find((c) => c.startsWith('svc_session='));
    const cookie = set?.split(';')[0] ?? '';
    const page = await web('GET', landing, { cookie });
    return { res, cookie, csrf: csrfIn(page.html), page };
  }

  return { web, signIn };
}
