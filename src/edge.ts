// The HTTP edge every request passes first: its request id and log line, the proxy rule, and error shaping.
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { CarShare } from './carshares/car-share.js';
import type { CarShareRegistry } from './carshares/registry.js';
import { isStaticAsset } from './http/static-asset.js';
import { bearerChallenge } from './shared/challenge.js';
import { CLIENT_CLOSED, clientWentAway } from './shared/client-gone.js';
import { type ErrorCode, isDomainError, MASKED_MESSAGE } from './shared/errors.js';
import type { Logger } from './shared/log.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface Edge {
  /** Request id (a sane incoming `Request-Id` is kept) and the one JSON log line per request. */
  requestLog: Koa.Middleware;
  /** Behind a TLS-terminating proxy, a request that reached the proxy over plain HTTP is refused too. */
  httpsOnly: Koa.Middleware;
  /**
   * Errors that escape a route: domain errors keep their status; a client that went away is a 499 logged at debug;
   * anything else is masked and logged.
   */
  errors: Koa.Middleware;
  /** The request id of a request carrying this `Request-Id` header (kept when sane, else a new one). */
  requestIdOf(incoming: string | undefined): string;
  /** Writes the request's log line (for requests answered in front of Koa; `requestLog` writes the others). */
  logRequest(line: RequestLine, level?: 'info' | 'debug'): void;
  /**
   * With UNKNOWN_HOST=reject, a request whose host names no car share: 404 `UnknownHost` on every path but the
   * probes (CONTRACT §19).
   */
  unknownHost: Koa.Middleware;
  /** The car share a request's headers address (CONTRACT §19), or undefined for a host that names none. */
  carShareOf(host: string | undefined, forwardedHost: string | undefined): CarShare | undefined;
  /**
   * Answers `{"ResponseStatus":…}` with the code's status, in the negotiated format (and `Meta.Help`, the /docs
   * section on the code).
   */
  sendError(ctx: Koa.Context, code: ErrorCode, message: string, meta?: Record<string, unknown>): void;
  /**
   * Koa's `error` listener: what Koa meets outside the middleware (mostly a client that left mid-answer: ECONNRESET
   * writing the body) goes through the JSON log; Koa's default handler would print it to stderr.
   */
  outsideChain(err: Error & { status?: number; expose?: boolean }, ctx?: Koa.Context): void;
}

export type ErrorRenderer = (
  ctx: Koa.Context,
  code: ErrorCode,
  message: string,
  meta: Record<string, unknown> | undefined,
  baseUrl: string,
) => void;

/** The plain-HTTP refusal's message: it names where the service is. */
export const httpsRequiredMessage = (publicUrl: string): string =>
  `This service is only available over HTTPS, at ${publicUrl}`;

/** Milliseconds since `started` (performance.now()), to a tenth. */
export const durationSince = (started: number): number => Math.round((performance.now() - started) * 10) / 10;

export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  ip: string;
  carShareId?: string | undefined;
}

/** Paths that answer on every host and never name a car share. */
export const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

export function createEdge(opts: {
  log: Logger;
  trustProxy: boolean;
  publicUrl: string;
  carShares: CarShareRegistry;
  unknownHost?: 'default' | 'reject' | undefined;
  /**
   * Writes a ResponseStatus with the code's status in the request's negotiated format, links under `baseUrl`: the
   * REST facade's renderer (app.ts hands it over), so the edge's refusals read as the facade's errors do.
   */
  renderError: ErrorRenderer;
}): Edge {
  const { log, carShares } = opts;
  const reject = opts.unknownHost === 'reject';
  // The host as sent selects the car share, and nothing else does: X-Forwarded-Host only behind a trusted proxy.
  const carShareOf: Edge['carShareOf'] = (host, forwardedHost) => {
    const given = opts.trustProxy && forwardedHost ? forwardedHost.split(',')[0] : host;
    return given ? carShares.byHost(given) : undefined;
  };
  // The request line names no secret (id, method, path, status, duration, address): it skips the redaction walk
  // every other log line pays, since it is written for every request.
  const requestLine = log.child({}, { redact: [] });
  const baseUrlOf = (ctx: Koa.Context): string =>
    (ctx.state.carShare as CarShare | undefined)?.baseUrl ?? opts.publicUrl;
  const sendError: Edge['sendError'] = (ctx, code, message, meta) =>
    opts.renderError(ctx, code, message, meta, baseUrlOf(ctx));
  const requestIdOf = (incoming: string | undefined) =>
    incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  const logRequest = (line: RequestLine, level: 'info' | 'debug' = 'info') =>
    requestLine[level](line, 'request');
  return {
    sendError,
    outsideChain(err, ctx) {
      const requestId = ctx?.state.requestId as string | undefined;
      if (clientWentAway(err, ctx?.req) || err.expose || err.status === 404)
        log.debug({ requestId, reason: err.message }, 'client went away or was refused');
      else log.error({ err, requestId }, 'unexpected error');
    },
    requestIdOf,
    logRequest,
    carShareOf,
    async unknownHost(ctx, next) {
      if (reject && ctx.state.hostUnknown === true && !PROBES.has(ctx.path)) {
        const message = `No car share is at ${ctx.get('Host') || 'this host'}`;
        ctx.state.carShare = undefined;
        if (ctx.path === '/graphql' || ctx.path.startsWith('/graphql/')) {
          ctx.status = 404;
          ctx.body = { errors: [{ message, extensions: { code: 'NotFound', Reason: 'UnknownHost' } }] };
          return;
        }
        if (ctx.method === 'GET' && ctx.accepts('json', 'html') === 'html') {
          ctx.status = 404;
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><h1>Not found</h1><p>No car share is at this address.</p></body></html>`;
          return;
        }
        return sendError(ctx, 'NotFound', message, { Reason: 'UnknownHost' });
      }
      await next();
    },
    async requestLog(ctx, next) {
      const requestId = requestIdOf(ctx.get('Request-Id'));
      ctx.state.requestId = requestId;
      // Every change to a car share committed before this request is known here first (the probes name none).
      // A cached token check relies on the same barrier (identifyCaller: `heard`).
      if (!PROBES.has(ctx.path)) ctx.state.heard = await carShares.settled();
      const carShare = carShareOf(ctx.get('Host'), ctx.get('X-Forwarded-Host'));
      ctx.state.hostUnknown = carShare === undefined;
      ctx.state.carShare = carShare ?? carShares.default;
      ctx.set('Request-Id', requestId);
      const started = performance.now();
      try {
        await next();
      } finally {
        logRequest(
          {
            requestId,
            method: ctx.method,
            path: ctx.path,
            status: ctx.status,
            durationMs: durationSince(started),
            ip: ctx.ip,
            carShareId: (ctx.state.carShare as CarShare | undefined)?.id,
          },
          isStaticAsset(ctx) ? 'debug' : 'info',
        );
      }
    },
    async httpsOnly(ctx, next) {
      if (opts.trustProxy && ctx.get('X-Forwarded-Proto').split(',')[0]?.trim().toLowerCase() === 'http')
        return sendError(ctx, 'HttpsRequired', httpsRequiredMessage(baseUrlOf(ctx)));
      await next();
    },
    async errors(ctx, next) {
      try {
        await next();
      } catch (err) {
        // Before the status checks: the body parsers' `request aborted` is a 400 of theirs.
        if (clientWentAway(err, ctx.req)) {
          log.debug({ requestId: ctx.state.requestId, reason: (err as Error).message }, 'client went away');
          ctx.status = CLIENT_CLOSED;
          return;
        }
        if (isDomainError(err)) {
          const challenge = bearerChallenge(err.code, err.details.meta);
          if (challenge) ctx.set('WWW-Authenticate', challenge.header);
          return sendError(ctx, err.code, err.message, err.details.meta);
        }
        const status = (err as { status?: unknown }).status;
        if (status === 413) return sendError(ctx, 'PayloadTooLarge', 'The request body is larger than 1 MiB');
        if (status === 415)
          return sendError(ctx, 'UnsupportedMediaType', 'The request body type is not supported');
        if (status === 400) return sendError(ctx, 'InvalidFormat', 'The request body could not be parsed');
        log.error({ err, requestId: ctx.state.requestId }, 'unexpected error');
        sendError(ctx, 'InternalServerError', MASKED_MESSAGE, { RequestId: ctx.state.requestId });
      }
    },
  };
}
