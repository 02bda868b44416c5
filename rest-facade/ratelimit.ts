// Rate limits (CONTRACT §10, §20), counted in this process's memory or shared through Redis: sign-in, sign-up and
// token POSTs per client IP; every other request per caller (token subject, or IP when anonymous), as the edge left
// it on `ctx.state.caller`. Every window is its car share's (an IP refused at A still gets tokens at B), whose
// `Limits` override the deployment's settings; a car share may also have a ceiling on all its requests per minute.
// RateLimit-* headers (the caller's own window) on every response; 429 with Retry-After and a TooManyRequests body in
// the negotiated format (`Meta.Scope: CarShare` past the ceiling).
// GraphQL operations count their mutation root fields on top (CONTRACT §28, ratelimit.actions.ts).
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import type { RedisKeyNames } from './cache.js';
import { dtoName } from './dto.js';
import { type ErrorTable, restError } from './errors.js';
import { type CountActions, countActions, SIGN_UP_OPERATION } from './ratelimit.actions.js';
import { CEILING_KEY, limitsFor } from './ratelimit.limits.js';
import { takeInRedis } from './ratelimit.redis.js';
import { MemoryWindows, type Take, type Taken, type TakeUnits, takeInMemory } from './ratelimit.store.js';
import { callerOf, formatOrJson, type RequestCarShare, sendError } from './respond.js';

export interface RateLimitOptions {
  perMinute: number;
  anonymousPerMinute: number;
  authPerMinute: number;
  /** Requests per minute of one car share, all its callers together; 0 or absent: no ceiling. */
  carSharePerMinute?: number | undefined;
  /** Counters shared by instances; in this process's memory when absent. */
  redis?: Redis | undefined;
  /** The names of the counters' keys in Redis (required with `redis`). */
  redisKeys?: RedisKeyNames | undefined;
  /** The POSTs of the sign-in class (sign-in, sign-up, token). */
  isAuthRequest?(method: string, path: string): boolean;
  /** The service's error table, for the 429's status (as the facade is given it). */
  errors: ErrorTable;
  windowMs?: number;
  /** Told when the counters cannot be reached; the request then goes through uncounted (fail open). */
  onStoreError?(err: unknown): void;
  /**
   * Answers a 429 in another shape (the authorization server's, /graphql's); returns false to leave it to the
   * facade. `scope` is `CarShare` when the car share's ceiling refused it.
   */
  refuse?(ctx: Koa.Context, message: string, retryAfter: number, scope?: RefusalScope): boolean;
  /** Keys (callers, addresses) counted in memory at most; the oldest window is forgotten past it. */
  memoryKeys?: number;
  /**
   * The verdict of a request already counted in front of Koa (a revalidation that was not a 304 after all: it was
   * counted while its ETag was read), so that it is counted once.
   */
  countedOf?(ctx: Koa.Context): RateVerdict | undefined;
}

/** Which window refused: the car share's ceiling; absent when it was the caller's own. */
export type RefusalScope = 'CarShare';

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

/** Seconds from `now` until a window ending at `endsAtMs` (epoch milliseconds), at most the window's length. */
const secondsUntil = (endsAtMs: number, windowMs: number, now = Date.now()): number =>
  Math.min(Math.ceil(windowMs / 1000), Math.max(0, Math.ceil((endsAtMs - now) / 1000)));

/** What one request's counting decided, as the RateLimit-* headers tell it (the caller's own window). */
export interface RateVerdict {
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Seconds until the window ends. */
  reset: number;
  passed: boolean;
  /** Refused: seconds until the window that lacked room ends (Retry-After). */
  retryAfter?: number;
  /** Refused by the car share's ceiling rather than the caller's own window. */
  scope?: RefusalScope;
}

/** Who a request is counted as: its class and the key within it, in its car share. */
export interface RateSubject {
  method: string;
  path: string;
  ip: string;
  caller: { subject: string | null } | undefined;
  /** The car share addressed; windows are unscoped without one (a limiter used on its own). */
  carShare?: RequestCarShare | undefined;
}

export interface RateLimiter {
  middleware: Koa.Middleware;
  /**
   * Counts a request answered before the middleware would run (a revalidation answered at the edge), exactly as
   * the middleware counts it: in memory at once, in Redis in one round trip (rejects when Redis cannot be reached:
   * the request then goes on to the middleware, which serves it uncounted).
   */
  count(who: RateSubject): RateVerdict | Promise<RateVerdict>;
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

/** A request's takes: one unit from the caller's own window, and one from the car share's ceiling when it has one. */
function requestTakes(
  who: RateSubject,
  isAuth: (method: string, path: string) => boolean,
  opts: RateLimitOptions,
) {
  const { cls, key } = classOf(who, isAuth);
  const limits = limitsFor(opts, who.carShare);
  const takes: Take[] = [{ key: `${cls}:${key}`, max: limits[cls], units: 1 }];
  if (limits.carShare > 0) takes.push({ key: CEILING_KEY, max: limits.carShare, units: 1 });
  return takes;
}

/** The verdict of a request's takes (its own window first, then the ceiling, if any). */
function verdictOf(takes: readonly Take[], taken: Taken, windowMs: number, now = Date.now()): RateVerdict {
  const own = taken.windows[0]!;
  const verdict: RateVerdict = {
    limit: takes[0]!.max,
    remaining: own.remaining,
    reset: secondsUntil(own.endsAt, windowMs, now),
    passed: taken.passed,
  };
  if (taken.passed) return verdict;
  // The caller's own window speaks first: a caller past their own limit gets §10's body whatever the ceiling says.
  const ownLacked = own.remaining < takes[0]!.units;
  const lacking = ownLacked ? own : taken.windows[1]!;
  return {
    ...verdict,
    retryAfter: Math.max(1, secondsUntil(lacking.endsAt, windowMs, now)),
    ...(ownLacked ? {} : { scope: 'CarShare' as const }),
  };
}

export function rateLimits(opts: RateLimitOptions): Koa.Middleware {
  return rateLimiter(opts).middleware;
}

export function rateLimiter(opts: RateLimitOptions): RateLimiter {
  const duration = opts.windowMs ?? 60_000;
  const isAuth = opts.isAuthRequest ?? defaultIsAuthRequest;
  const refuse = (ctx: Koa.Context, retryAfter: number, scope: RefusalScope | undefined) => {
    const message = scope
      ? `Too many requests to this car share; retry in ${retryAfter} s`
      : `Too many requests; retry in ${retryAfter} s`;
    if (!opts.refuse?.(ctx, message, retryAfter, scope)) {
      const e = restError('TooManyRequests', message, {
        RetryAfterSeconds: retryAfter,
        ...(scope ? { Scope: scope } : {}),
      });
      sendError(ctx, e, formatOrJson(ctx), opts.errors);
    }
    ctx.set('Retry-After', String(retryAfter));
  };
  const subjectOf = (ctx: Koa.Context): RateSubject => ({
    method: ctx.method,
    path: ctx.path,
    ip: ctx.ip,
    caller: callerOf(ctx),
    // A refused token's caller still names the car share addressed.
    carShare:
      (ctx.state.caller as { carShare?: RequestCarShare } | undefined)?.carShare ??
      (ctx.state.carShare as RequestCarShare | undefined),
  });
  const headers = (ctx: Koa.Context, v: RateVerdict) => {
    ctx.set('RateLimit-Limit', String(v.limit));
    ctx.set('RateLimit-Remaining', String(v.remaining));
    ctx.set('RateLimit-Reset', String(v.reset));
  };

  if (opts.redis) {
    const redis = opts.redis;
    const keys = opts.redisKeys;
    if (!keys) throw new Error('rateLimiter: counters in Redis need the names of their keys (redisKeys)');
    // `<prefix><carShareId>:ratelimit:<class>:<key>`: a car share's windows are its own, a deployment's its own.
    const take: TakeUnits = (carShareId, takes) =>
      takeInRedis(
        redis,
        duration,
        takes.map((t) => ({
          ...t,
          key: carShareId
            ? keys.carShare(carShareId, `ratelimit:${t.key}`)
            : keys.deployment(`ratelimit:${t.key}`),
        })),
      );
    const countInRedis = (who: RateSubject): RateVerdict | Promise<RateVerdict> => {
      const takes = requestTakes(who, isAuth, opts);
      const taken = take(who.carShare?.id, takes);
      // Answered from what Redis last said (far from the limits): no turn spent waiting.
      return taken instanceof Promise
        ? taken.then((t) => verdictOf(takes, t, duration))
        : verdictOf(takes, taken, duration);
    };
    return {
      actions: countActions(opts, duration, take),
      count: countInRedis,
      async middleware(ctx, next) {
        if (UNCOUNTED.has(ctx.path)) return next();
        let v: RateVerdict;
        try {
          v = opts.countedOf?.(ctx) ?? (await countInRedis(subjectOf(ctx)));
        } catch (err) {
          // The shared counters are out of reach (Redis down): serving uncounted beats refusing everyone.
          opts.onStoreError?.(err);
          return next();
        }
        headers(ctx, v);
        if (v.passed) return next();
        refuse(ctx, v.retryAfter ?? 1, v.scope);
      },
    };
  }

  // The first request of a window sees the whole allowance; a refused request takes nothing.
  const windows = new MemoryWindows(duration, opts.memoryKeys);
  const take = (carShareId: string | undefined, takes: readonly Take[], now = Date.now()): Taken =>
    takeInMemory(
      windows,
      carShareId ? takes.map((t) => ({ ...t, key: `${carShareId}:${t.key}` })) : takes,
      now,
    );
  const count = (who: RateSubject): RateVerdict => {
    const takes = requestTakes(who, isAuth, opts);
    const now = Date.now();
    return verdictOf(takes, take(who.carShare?.id, takes, now), duration, now);
  };
  return {
    count,
    actions: countActions(opts, duration, (carShareId, takes) => take(carShareId, takes)),
    async middleware(ctx, next) {
      if (UNCOUNTED.has(ctx.path)) return next();
      const v = opts.countedOf?.(ctx) ?? count(subjectOf(ctx));
      headers(ctx, v);
      if (v.passed) return next();
      refuse(ctx, v.retryAfter ?? 1, v.scope);
    },
  };
}
