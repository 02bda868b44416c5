// Rate limits (CONTRACT §10) with koa-ratelimit: sign-in, sign-up and token POSTs per client IP; every
// other request per caller (token subject, or IP when anonymous), as the edge left it on `ctx.state.caller`.
// RateLimit-* headers on every response; 429 with Retry-After and a TooManyRequests body in the negotiated format.
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import ratelimit from 'koa-ratelimit';
import { dtoName } from './dto.js';
import { type ErrorTable, restError } from './errors.js';
import { callerOf, formatOrJson, sendError } from './respond.js';

export interface RateLimitOptions {
  perMinute: number;
  anonymousPerMinute: number;
  authPerMinute: number;
  /** Counters shared by instances; in this process's memory when absent. */
  redis?: Redis | undefined;
  /** The POSTs of the sign-in class (sign-in, sign-up, token). */
  isAuthRequest?(method: string, path: string): boolean;
  publicUrl: string;
  /** The service's error table, for the 429's status (as the facade is given it). */
  errors: ErrorTable;
  windowMs?: number;
  /** Told when the counters cannot be reached; the request then goes through uncounted (fail open). */
  onStoreError?(err: unknown): void;
  /** Answers a 429 in another shape (the authorization server's); returns false to leave it to the facade. */
  refuse?(ctx: Koa.Context, message: string): boolean;
}

/** Sign-up by its predefined routes too (CONTRACT §16): `/api/CreateUserAccount`, `/json/reply/CreateUserAccount`. */
const SIGN_UP = dtoName({ method: 'POST', operation: 'createUserAccount' }, 'one');

const AUTH_POSTS = [
  /^\/api\/useraccounts\/?$/i,
  new RegExp(`^/(api|json/reply)/${SIGN_UP}/?$`, 'i'),
  /^\/api\/oauth\/token\/?$/i,
  /^\/api\/oauth\/interaction\/[^/]+\/(login|sign-?in)\/?$/i,
];
export const defaultIsAuthRequest = (method: string, path: string): boolean =>
  method === 'POST' && AUTH_POSTS.some((re) => re.test(path));

// koa-ratelimit writes its own header names; these are rewritten into RateLimit-* below.
const RAW = {
  remaining: 'X-Raw-Limit-Remaining',
  reset: 'X-Raw-Limit-Reset',
  total: 'X-Raw-Limit-Total',
} as const;

/**
 * Seconds until a reset given as epoch seconds (memory driver) or epoch milliseconds (Redis driver), within
 * the window: the memory driver's clock is monotonic time and may drift a little from the wall clock.
 */
const secondsUntil = (reset: number, windowMs: number): number => {
  const ms = reset > 1e11 ? reset : reset * 1000;
  return Math.min(Math.ceil(windowMs / 1000), Math.max(0, Math.ceil((ms - Date.now()) / 1000)));
};

function rewriteHeaders(ctx: Koa.Context, windowMs: number): number {
  const reset = secondsUntil(Number(ctx.response.get(RAW.reset)), windowMs);
  ctx.set('RateLimit-Limit', ctx.response.get(RAW.total));
  ctx.set('RateLimit-Remaining', ctx.response.get(RAW.remaining));
  ctx.set('RateLimit-Reset', String(reset));
  for (const h of Object.values(RAW)) ctx.remove(h);
  return reset;
}

export function rateLimits(opts: RateLimitOptions): Koa.Middleware {
  const duration = opts.windowMs ?? 60_000;
  const isAuth = opts.isAuthRequest ?? defaultIsAuthRequest;
  const limiter = (namespace: string, max: number) =>
    ratelimit({
      ...(opts.redis
        ? { driver: 'redis' as const, db: opts.redis }
        : { driver: 'memory' as const, db: new Map() }),
      namespace: `ratelimit:${namespace}`,
      duration,
      max,
      id: (ctx) => (ctx.state.rateLimitKey as string) || ctx.ip,
      headers: RAW,
    } as ratelimit.MiddlewareOptions);
  const classes = {
    auth: limiter('auth', opts.authPerMinute),
    caller: limiter('caller', opts.perMinute),
    anonymous: limiter('anonymous', opts.anonymousPerMinute),
  };

  return async (ctx, next) => {
    let cls: keyof typeof classes = 'anonymous';
    ctx.state.rateLimitKey = `ip:${ctx.ip}`;
    if (isAuth(ctx.method, ctx.path)) cls = 'auth';
    else {
      // The caller the edge resolved; a bad token is counted by IP.
      const caller = callerOf(ctx);
      if (caller?.subject) {
        cls = 'caller';
        ctx.state.rateLimitKey = `sub:${caller.subject}`;
      }
    }
    let passed = false;
    try {
      await classes[cls](ctx, async () => {
        passed = true;
        rewriteHeaders(ctx, duration);
        await next();
      });
    } catch (err) {
      if (passed) throw err; // from the route, not from the counters
      // The shared counters are out of reach (Redis down): serving uncounted beats refusing everyone.
      opts.onStoreError?.(err);
      await next();
      return;
    }
    if (passed) return;
    const retryAfter = Math.max(1, rewriteHeaders(ctx, duration));
    const message = `Too many requests; retry in ${retryAfter} s`;
    if (!opts.refuse?.(ctx, message)) {
      const e = restError('TooManyRequests', message, { RetryAfterSeconds: retryAfter });
      sendError(ctx, e, formatOrJson(ctx), opts.publicUrl, opts.errors);
    }
    ctx.set('Retry-After', String(retryAfter));
  };
}
