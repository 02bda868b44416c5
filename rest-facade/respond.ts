// Writes answers on a Koa context: a body in its format with headers, or a ResponseStatus error in the
// format the request negotiated (errors come in the negotiated format too, CONTRACT §2).
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { type ErrorTable, type RestError, restError, statusFor } from './errors.js';
import { errorPayload, render } from './formats/index.js';
import { type Format, formatParam, fromAccept } from './formats/negotiate.js';
import { queryValue } from './request.js';

/**
 * The car share a request addresses (CONTRACT §19), as the edge found it from the host: every absolute URL the
 * facade writes begins with its `baseUrl`, and its cache, ETags and rate-limit windows are its own (§20).
 */
export interface RequestCarShare {
  id: string;
  /** An https origin without a trailing slash. */
  baseUrl: string;
  /** The deployment's default car share (at PUBLIC_URL): the command line names any other with `--car-share`. */
  isDefault?: boolean;
  /** Its overrides of the deployment's rate limits; an omitted one is the deployment's setting. */
  limits?: {
    CallerPerMinute?: number;
    AnonymousPerMinute?: number;
    AuthPerMinute?: number;
    CarSharePerMinute?: number;
  };
}

/**
 * Who is calling, resolved once per request before the rate limits and left on `ctx.state.caller`: `subject` for
 * rate limits (null when anonymous), `key` for the per-caller cache, `refused` the error a bad token raised (the
 * rate limits then count by IP; the facade answers it where it first needs the caller), and the car share the
 * request addresses (a refused caller's too).
 */
export interface Caller {
  subject: string | null;
  key: string;
  refused?: unknown;
  carShare: RequestCarShare;
}

/**
 * The car share the request addresses: the caller's, or, before a caller is resolved, the one the edge left on
 * `ctx.state.carShare`. Never the host as sent: the edge alone reads it.
 */
export function carShareOf(ctx: Koa.Context): RequestCarShare {
  const carShare =
    (ctx.state.caller as Caller | undefined)?.carShare ?? (ctx.state.carShare as RequestCarShare | undefined);
  if (!carShare) throw new Error('no car share on the request: the edge finds it before anything answers');
  return carShare;
}

/** The caller the edge resolved, if any (a bad token counts as none). */
export function callerOf<C extends Caller = Caller>(ctx: Koa.Context): C | undefined {
  const caller = ctx.state.caller as C | undefined;
  return caller && caller.refused === undefined ? caller : undefined;
}

/** The caller the edge resolved; throws the refusal of a bad token. */
export function knownCaller<C extends Caller = Caller>(ctx: Koa.Context): C {
  const caller = ctx.state.caller as C | undefined;
  if (!caller) throw new Error('no caller on the request: the edge resolves it before the facade runs');
  if (caller.refused !== undefined) throw caller.refused;
  return caller;
}

export function send(
  ctx: Koa.Context,
  status: number,
  body: string | Buffer | null,
  headers: Record<string, string>,
): void {
  ctx.status = status;
  for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
  ctx.body = body;
  // Koa guesses a type for string bodies; ours is already decided.
  if (body !== null && headers['Content-Type']) ctx.type = headers['Content-Type'];
}

/** The request's format; an unknown `format` value throws 406 (whose body is then JSON). */
export const negotiate = (ctx: Koa.Context): Format =>
  formatOf(ctx.querystring, ctx.get('Accept') || undefined);

/** The format a query's `format` names, else the one `Accept` prefers; an unknown `format` value throws 406. */
export const formatOf = (querystring: string, accept: string | undefined): Format =>
  formatParam(queryValue(querystring, 'format')) ?? fromAccept(accept);

/** The negotiated format, or JSON when the `format` value itself is the problem (outside Koa too). */
export function formatOrJsonOf(querystring: string, accept: string | undefined): Format {
  try {
    return formatOf(querystring, accept);
  } catch {
    return 'json';
  }
}

/** The request's negotiated format, or JSON when the `format` value itself is the problem. */
export const formatOrJson = (ctx: Koa.Context): Format =>
  formatOrJsonOf(ctx.querystring, ctx.get('Accept') || undefined);

/** An error answer written out: its status, its body and the headers that go with them. */
export interface ErrorAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/**
 * The one writing of a ResponseStatus: in `format`, with `Meta.Help` (the /docs section on its code, CONTRACT §27)
 * under `base`, the HTML form's links under `url`. Koa's chain writes its errors through `sendError`, the listeners'
 * own refusals outside it (plain HTTP, WebSocket upgrades: src/server.ts) through `errorRenderers`' `refusal`.
 */
export function errorAnswer(
  err: RestError,
  format: Format,
  table: ErrorTable,
  base: string,
  url: URL,
  title: string,
): ErrorAnswer {
  // A refusal that says when to come back (429, 503) says it in the header too.
  const retryAfter = err.body.Meta?.RetryAfterSeconds;
  const headers =
    typeof retryAfter === 'number' ? { 'Retry-After': String(retryAfter), ...err.headers } : err.headers;
  // A string, as ServiceStack's Meta holds.
  const status = { ...err.body, Meta: { ...err.body.Meta, Help: table.help(base, err.body.ErrorCode) } };
  const r = render(errorPayload(status, title), format, url);
  return { status: statusFor(table, err), body: r.body, headers: { ...r.headers, ...headers } };
}

/**
 * A request's path and query under `base`, for the links an answer writes: a target naming another origin
 * (`//elsewhere/…`, absolute-form) or one the URL parser refuses is the base itself, so an error page links nowhere
 * else and writing it never throws.
 */
export function requestUrl(target: string | undefined, base: string): URL {
  const origin = new URL(base);
  try {
    const url = new URL(target ?? '/', origin);
    if (url.origin === origin.origin) return url;
  } catch {
    // Not a URL: the base stands for it.
  }
  return origin;
}

/**
 * A ResponseStatus error in the negotiated format, its links under the request's car share's BaseUrl, or under
 * `base` (a request whose host names no car share). The edge's own refusals are written here too (src/edge.ts).
 */
export function sendError(
  ctx: Koa.Context,
  err: RestError,
  format: Format,
  table: ErrorTable,
  base: string = carShareOf(ctx).baseUrl,
): void {
  const url = requestUrl(ctx.originalUrl, base);
  const a = errorAnswer(err, format, table, base, url, `${err.body.ErrorCode} — ${ctx.method} ${ctx.path}`);
  send(ctx, a.status, a.body, a.headers);
}

/**
 * This renderer for the service's other pieces, bound to its error table: `render` for Koa's edge and a suspended
 * car share's refusal (links under `base`, default the car share's), `refusal` for the listeners' own answers
 * outside Koa (plain HTTP, WebSocket upgrades: src/server.ts), given the raw request.
 */
export function errorRenderers(table: ErrorTable) {
  return {
    render(
      ctx: Koa.Context,
      code: string,
      message: string,
      meta?: Record<string, unknown>,
      base?: string,
    ): void {
      sendError(ctx, restError(code, message, meta), formatOrJson(ctx), table, base);
    },
    refusal(
      req: IncomingMessage,
      code: string,
      message: string,
      meta: Record<string, unknown> | undefined,
      base: string,
    ): ErrorAnswer {
      const url = requestUrl(req.url, base);
      const format = formatOrJsonOf(url.search.slice(1), req.headers.accept);
      const title = `${code} — ${req.method ?? 'GET'} ${url.pathname}`;
      return errorAnswer(restError(code, message, meta), format, table, base, url, title);
    },
  };
}

export type ErrorRenderers = ReturnType<typeof errorRenderers>;
