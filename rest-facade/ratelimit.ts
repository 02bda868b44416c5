// Rate limits (CONTRACT §10), counted in this process's memory or shared through Redis (koa-ratelimit's driver):
// sign-in, sign-up and token POSTs per client IP; every other request per caller (token subject, or IP when
// anonymous), as the edge left it on `ctx.state.caller`.
// RateLimit-* headers on every response; 429 with Retry-After and a TooManyRequests body in the negotiated format.
// GraphQL operations count their mutation root fields on top (CONTRACT §28, ratelimit.actions.ts).
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import ratelimit from 'koa-ratelimit';
import { dtoName } from './dto.js';
import { type ErrorTable, restError } from './errors.js';
import { type CountActions, countActions, SIGN_UP_OPERATION } from './ratelimit.actions.js';
import { MemoryWindows, takeInMemory, takeInRedis } from './ratelimit.store.js';
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
  refuse?(ctx: Koa.Context, message: string, retryAfter: number): boolean;
  /** Keys (callers, addresses) counted in memory at most; the oldest window is forgotten past it. */
  memoryKeys?: number;
}

/** Sign-up by its predefined routes too (CONTRACT §16): `/api/CreateUserAccount`, `/json/reply/CreateUserAccount`. */
const SIGN_UP = dtoName({ method: 'POST', operation: SIGN_UP_OPERATION }, 'one');

const AUTH_POSTS = [
  /^\/api\/useraccounts\/?$/i,
  new RegExp(`^/(api|json/reply)/${SIGN_UP}/?$`, 'i'),
  /^\/api\/oauth\/token\/?$/i,
  /^\/api\/oauth\/interaction\/[^/]+\/(login|sign-?in)\/?$/i,
];
/**
 * The metrics scrape is not counted, so a scraper keeps its address's allowance (it is protected by
 * METRICS_TOKEN instead); the probes stay counted like every other request (CONTRACT §10's headers on them).
 */
const UNCOUNTED = new Set(['/metrics']);

export const defaultIsAuthRequest = (method: string, path: string): boolean =>
  method === 'POST' && AUTH_POSTS.some((re) => re.test(path));

// koa-ratelimit writes its own header names; these are rewritten into RateLimit-* below.
const RAW = {
  remaining: 'X-Raw-Limit-Remaining',
  reset: 'X-Raw-Limit-Reset',
  total: 'X-Raw-Limit-Total',
} as const;

/** Seconds from `now` until a window ending at `endsAtMs` (epoch milliseconds), at most the window's length. */
const secondsUntil = (endsAtMs: number, windowMs: number, now = Date.now()): number =>
  Math.min(Math.ceil(windowMs / 1000), Math.max(0, Math.ceil((endsAtMs - now) / 1000)));

function rewriteHeaders(ctx: Koa.Context, windowMs: number): number {
  // koa-ratelimit's Redis driver gives the window's end in epoch milliseconds.
  const reset = secondsUntil(Number(ctx.response.get(RAW.reset)), windowMs);
  ctx.set('RateLimit-Limit', ctx.response.get(RAW.total));
  ctx.set('RateLimit-Remaining', ctx.response.get(RAW.remaining));
  ctx.set('RateLimit-Reset', String(reset));
  for (const h of Object.values(RAW)) ctx.remove(h);
  return reset;
}

/** What one request's counting decided, as the RateLimit-* headers tell it. */
export interface RateVerdict {
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Seconds until the window ends. */
  reset: number;
  passed: boolean;
}

/** Who a request is counted as: its class and the key within it. */
export interface RateSubject {
  method: string;
  path: string;
  ip: string;
  caller: { subject: string | null } | undefined;
}

export interface RateLimiter {
  middleware: Koa.Middleware;
  /**
   * Counts a request answered before the middleware would run (a revalidation answered at the edge), exactly as
   * the middleware counts it; absent when the counters are shared in Redis, where only the middleware counts.
   */
  count?(who: RateSubject): RateVerdict;
  /** Counts a GraphQL operation's mutation root fields (CONTRACT §28), in memory or in Redis like the requests. */
  actions: CountActions;
}

const classOf = (who: RateSubject, isAuth: (method: string, path: string) => boolean) => {
  if (isAuth(who.method, who.path)) return { cls: 'auth' as const, key: `ip:${who.ip}` };
  // The caller the edge resolved; a bad token is counted by IP.
  const subject = who.caller?.subject;
  return subject
    ? { cls: 'caller' as const, key: `sub:${subject}` }
    : { cls: 'anonymous' as const, key: `ip:${who.ip}` };
};

export function rateLimits(opts: RateLimitOptions): Koa.Middleware {
  return rateLimiter(opts).middleware;
}

export function rateLimiter(opts: RateLimitOptions): RateLimiter {
  const duration = opts.windowMs ?? 60_000;
  const isAuth = opts.isAuthRequest ?? defaultIsAuthRequest;
  const max = { auth: opts.authPerMinute, caller: opts.perMinute, anonymous: opts.anonymousPerMinute };
  const refuse = (ctx: Koa.Context, retryAfter: number) => {
    const message = `Too many requests; retry in ${retryAfter} s`;
    if (!opts.refuse?.(ctx, message, retryAfter)) {
      const e = restError('TooManyRequests', message, { RetryAfterSeconds: retryAfter });
      sendError(ctx, e, formatOrJson(ctx), opts.publicUrl, opts.errors);
    }
    ctx.set('Retry-After', String(retryAfter));
  };
  if (opts.redis) {
    const redis = opts.redis;
    return {
      middleware: redisLimits(opts, redis, duration, isAuth, refuse),
      actions: countActions(opts, duration, (takes) =>
        takeInRedis(
          redis,
          duration,
          takes.map((t) => ({ ...t, key: `ratelimit:${t.key}` })),
        ),
      ),
    };
  }

  // The first request of a window sees the whole allowance; a refused request takes nothing (as koa-ratelimit's
  // memory driver counts).
  const windows = new MemoryWindows(duration, opts.memoryKeys);
  const count = (who: RateSubject): RateVerdict => {
    const { cls, key } = classOf(who, isAuth);
    const now = Date.now();
    const taken = takeInMemory(windows, [{ key: `${cls}:${key}`, max: max[cls], units: 1 }], now);
    const w = taken.windows[0]!;
    return {
      limit: max[cls],
      remaining: w.remaining,
      reset: secondsUntil(w.endsAt, duration, now),
      passed: taken.passed,
    };
  };
  return {
    count,
    actions: countActions(opts, duration, (takes) => takeInMemory(windows, takes, Date.now())),
    async middleware(ctx, next) {
      if (UNCOUNTED.has(ctx.path)) return next();
      const v = count({ method: ctx.method, path: ctx.path, ip: ctx.ip, caller: callerOf(ctx) });
      ctx.set('RateLimit-Limit', String(v.limit));
      ctx.set('RateLimit-Remaining', String(v.remaining));
      ctx.set('RateLimit-Reset', String(v.reset));
      if (v.passed) return next();
      refuse(ctx, Math.max(1, v.reset));
    },
  };
}

/** Counters shared by instances (koa-ratelimit's Redis driver), failing open when Redis is out of reach. */
function redisLimits(
  opts: RateLimitOptions,
  redis: Redis,
  duration: number,
  isAuth: (method: string, path: string) => boolean,
  refuse: (ctx: Koa.Context, retryAfter: number) => void,
): Koa.Middleware {
  const limiter = (namespace: string, max: number) =>
    ratelimit({
      driver: 'redis' as const,
      db: redis,
      namespace: `ratelimit:${namespace}`,
      duration,
      max,
      id: (ctx) => ctx.state.rateLimitKey as string,
      headers: RAW,
    } as ratelimit.MiddlewareOptions);
  const classes = {
    auth: limiter('auth', opts.authPerMinute),
    caller: limiter('caller', opts.perMinute),
    anonymous: limiter('anonymous', opts.anonymousPerMinute),
  };

  return async (ctx, next) => {
    if (UNCOUNTED.has(ctx.path)) return next();
    const { cls, key } = classOf(
      { method: ctx.method, path: ctx.path, ip: ctx.ip, caller: callerOf(ctx) },
      isAuth,
    );
    ctx.state.rateLimitKey = key;
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
    refuse(ctx, Math.max(1, rewriteHeaders(ctx, duration)));
  };
}
