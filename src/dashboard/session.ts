// The dashboard's sessions: the operator's tokens live in an encrypted HttpOnly cookie (AES-256-GCM under a key
// derived in the database), so page scripts never see them and every instance can read them; plus the
// short-lived sign-in cookie (state and PKCE verifier) and a CSRF token per session for every form.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import type { Clock } from '../shared/clock.js';

export interface Session {
  sid: string;
  accessToken: string;
  refreshToken: string | null;
  /** When the access token expires (epoch ms). */
  expiresAt: number;
  userId: string;
  username: string;
  startedAt: number;
}

/** What the callback needs to finish a sign-in this browser began. */
export interface SignIn {
  state: string;
  verifier: string;
  next: string;
  startedAt: number;
}

/** An operator signs in again at least twice a day, however often the tokens are refreshed. */
const SESSION_MAX_MS = 12 * 3600_000;
const SIGN_IN_MAX_MS = 10 * 60_000;

function seal(key: Buffer, purpose: string, value: unknown): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(purpose));
  const body = Buffer.concat([c.update(JSON.stringify(value), 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url');
}

function open<T>(key: Buffer, purpose: string, sealed: string | undefined): T | undefined {
  if (!sealed) return undefined;
  try {
    const buf = Buffer.from(sealed, 'base64url');
    const d = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12)).setAAD(Buffer.from(purpose));
    d.setAuthTag(buf.subarray(12, 28));
    return JSON.parse(Buffer.concat([d.update(buf.subarray(28)), d.final()]).toString('utf8')) as T;
  } catch {
    // Tampered, truncated, or sealed under a key this deployment no longer has: no session.
    return undefined;
  }
}

export interface Sessions {
  read(ctx: Koa.Context): Session | undefined;
  write(ctx: Koa.Context, s: Session): void;
  clear(ctx: Koa.Context): void;
  readSignIn(ctx: Koa.Context): SignIn | undefined;
  writeSignIn(ctx: Koa.Context, s: SignIn): void;
  clearSignIn(ctx: Koa.Context): void;
  csrf(s: Session): string;
  checkCsrf(s: Session, sent: unknown): boolean;
}

/** `cookie` names the cookies (the dashboard's and the console's differ, on one host). */
export function sessions(key: Buffer, clock: Clock, cookie = 'carshare-dashboard'): Sessions {
  // `__Host-`: Secure, Path=/, no Domain, so no sibling host can plant or read it.
  const SESSION = `__Host-${cookie}`;
  const SIGN_IN = `__Host-${cookie}-signin`;
  const encKey = createHmac('sha256', key).update('dashboard-session-encryption').digest();
  const csrfKey = createHmac('sha256', key).update('dashboard-session-csrf').digest();
  const now = () => clock.now().getTime();
  const set = (ctx: Koa.Context, name: string, value: string | null, maxAge: number) =>
    ctx.cookies.set(name, value, {
      httpOnly: true,
      secure: true,
      sameSite: 'lax',
      path: '/',
      signed: false,
      overwrite: true,
      ...(value === null ? {} : { maxAge }),
    });
  const csrf = (s: Session) => createHmac('sha256', csrfKey).update(s.sid).digest('base64url');

  return {
    read(ctx) {
      const s = open<Session>(encKey, SESSION, ctx.cookies.get(SESSION));
      return s && now() - s.startedAt < SESSION_MAX_MS ? s : undefined;
    },
    write(ctx, s) {
      set(ctx, SESSION, seal(encKey, SESSION, s), Math.max(0, s.startedAt + SESSION_MAX_MS - now()));
    },
    clear: (ctx) => set(ctx, SESSION, null, 0),
    readSignIn(ctx) {
      const s = open<SignIn>(encKey, SIGN_IN, ctx.cookies.get(SIGN_IN));
      return s && now() - s.startedAt < SIGN_IN_MAX_MS ? s : undefined;
    },
    writeSignIn: (ctx, s) => set(ctx, SIGN_IN, seal(encKey, SIGN_IN, s), SIGN_IN_MAX_MS),
    clearSignIn: (ctx) => set(ctx, SIGN_IN, null, 0),
    csrf,
    checkCsrf(s, sent) {
      const a = Buffer.from(typeof sent === 'string' ? sent : '');
      const b = Buffer.from(csrf(s));
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}

export const newSessionId = (): string => randomBytes(16).toString('base64url');
