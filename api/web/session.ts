import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  deleteStaleSignInData,
  deleteWebSession,
  findUserByEmail,
  findWebSession,
  insertWebSession,
  loginAttemptSucceeded,
  reserveLoginAttempt,
  verifyPassword,
  type Db,
  type UserRow,
  type WebSession,
} from '../../db/index.js';
import type { Config } from '../../config/index.js';

/** A signed-in person's session lasts a working day, then they sign in again. */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** Sign-in throttling: failures counted over this window, per email and per client address. */
export const LOGIN_WINDOW_MS = 15 * 60_000;
export const LOGIN_MAX_FAILURES_PER_EMAIL = 5;
export const LOGIN_MAX_FAILURES_PER_IP = 20;

const SESSION_COOKIE = 'svc_session';
const LOGIN_CSRF_COOKIE = 'svc_login_csrf';

declare module 'fastify' {
  interface FastifyRequest {
    webSession?: WebSession;
  }
}

const token = () => randomBytes(32).toString('base64url');

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    try {
      out[name] ??= decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // A cookie we did not write: ignore it.
    }
  }
  return out;
}

/** HttpOnly and SameSite=Lax always; Secure whenever the public origin is https. */
function cookie(config: Config, name: string, value: string, maxAgeSeconds: number): string {
  const secure = config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** Constant-time comparison of two tokens of any length. */
export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface SessionDeps {
  db: Db;
  config: Config;
  now: () => Date;
}

/** The session this request's cookie names, if it is valid. */
/** Sessions read for a request: the rate limit reads it first (api/auth.ts), the page's guard again. */
const loaded = new WeakMap<FastifyRequest, Promise<WebSession | undefined>>();

export function loadSession(deps: SessionDeps, request: FastifyRequest): Promise<WebSession | undefined> {
  let session = loaded.get(request);
  if (!session) {
    const id = parseCookies(request.headers.cookie)[SESSION_COOKIE];
    session = !id || id.length > 100 ? Promise.resolve(undefined) : findWebSession(deps.db, id, deps.now());
    loaded.set(request, session);
  }
  return session;
}

/**
 * The login form's CSRF token: a cookie set with the form, echoed in a hidden field (double submit).
 * A browser that already holds one keeps it (its hour starts again): a new one at every form made
 * the form of another tab, or one shown before a second visit to a page, refused as expired.
 */
export function loginCsrf(deps: SessionDeps, request: FastifyRequest, reply: FastifyReply): string {
  const held = parseCookies(request.headers.cookie)[LOGIN_CSRF_COOKIE];
  const value = held && /^[A-Za-z0-9_-]{43}$/.test(held) ? held : token();
  reply.header('set-cookie', cookie(deps.config, LOGIN_CSRF_COOKIE, value, 3600));
  return value;
}

export function loginCsrfMatches(request: FastifyRequest, field: string | undefined): boolean {
  return sameToken(parseCookies(request.headers.cookie)[LOGIN_CSRF_COOKIE], field);
}

export type SignIn = { ok: true; user: UserRow } | { ok: false; reason: 'throttled' | 'invalid' };

/**
 * Checks a sign-in: refused without even checking the password once the email or the address has
 * failed too often in the window; every checked attempt is recorded (never the password).
 *
 * The attempt is counted and recorded as a failure first, in a short transaction serialised per
 * email in the database (db/queries/users.ts: reserveLoginAttempt), and only then is the password
 * checked: concurrent attempts, on this process or another, each see the ones before them, so no
 * more than the limit are ever checked in a window, and the right password past it is refused like
 * any other. The argon2 check runs after that transaction has committed, holding no pool connection:
 * a burst of attempts would otherwise pin connections (and the per-email lock) for tens of
 * milliseconds each. An attempt whose process dies before the check stays counted as a failure.
 * An unknown email takes the same steps and the same argon2 work (a decoy hash), so neither the
 * answer nor its time tells whether the email exists.
 */
export async function signIn(deps: SessionDeps, o: { email: string; password: string; ip: string }): Promise<SignIn> {
  const email = o.email.trim().toLowerCase().slice(0, 254);
  const now = deps.now();
  const attempt = await reserveLoginAttempt(deps.db, {
    email,
    ip: o.ip,
    at: now,
    since: new Date(now.getTime() - LOGIN_WINDOW_MS),
    maxPerEmail: LOGIN_MAX_FAILURES_PER_EMAIL,
    maxPerIp: LOGIN_MAX_FAILURES_PER_IP,
  });
  if (attempt.throttled) return { ok: false, reason: 'throttled' };
  const user = await findUserByEmail(deps.db, email);
  const ok = await verifyPassword(user?.passwordHash, o.password);
  if (!ok || !user) return { ok: false, reason: 'invalid' };
  await loginAttemptSucceeded(deps.db, attempt.id);
  return { ok: true, user };
}

/** A fresh session (a new id at every sign-in, so a planted cookie is worth nothing). */
export async function startSession(deps: SessionDeps, reply: FastifyReply, user: UserRow): Promise<void> {
  const id = token();
  const now = deps.now();
  await insertWebSession(deps.db, { id, userId: user.id, csrfToken: token(), createdAt: now, expiresAt: new Date(now.getTime() + SESSION_TTL_MS) });
  // Attempts are kept a day (for an operator looking into a lockout), far longer than the window.
  await deleteStaleSignInData(deps.db, now, new Date(now.getTime() - 86_400_000));
  reply.header('set-cookie', [
    cookie(deps.config, SESSION_COOKIE, id, SESSION_TTL_MS / 1000),
    cookie(deps.config, LOGIN_CSRF_COOKIE, '', 0),
  ]);
}

export async function endSession(deps: SessionDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const id = parseCookies(request.headers.cookie)[SESSION_COOKIE];
  if (id) await deleteWebSession(deps.db, id);
  reply.header('set-cookie', cookie(deps.config, SESSION_COOKIE, '', 0));
}
