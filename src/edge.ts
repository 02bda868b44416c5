// The HTTP edge every request passes first: its request id and log line, the proxy rule, and error shaping.
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { bearerChallenge } from './access/challenge.js';
import { isStaticAsset } from './http/static-asset.js';
import { CLIENT_CLOSED, clientWentAway } from './shared/client-gone.js';
import { type ErrorCode, isDomainError, MASKED_MESSAGE, responseStatus, statusOf } from './shared/errors.js';
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
  /** Answers `{"ResponseStatus":…}` with the code's status (and `Meta.Help`, the /docs section on the code). */
  sendError(ctx: Koa.Context, code: ErrorCode, message: string, meta?: Record<string, unknown>): void;
}

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
}

export function createEdge(opts: { log: Logger; trustProxy: boolean; publicUrl: string }): Edge {
  const { log } = opts;
  // The request line names no secret (id, method, path, status, duration, address): it skips the redaction walk
  // every other log line pays, since it is written for every request.
  const requestLine = log.child({}, { redact: [] });
  const sendError: Edge['sendError'] = (ctx, code, message, meta) => {
    ctx.status = statusOf[code];
    ctx.type = 'application/json';
    ctx.body = responseStatus(opts.publicUrl, code, message, meta);
  };
  const requestIdOf = (incoming: string | undefined) =>
    incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  const logRequest = (line: RequestLine, level: 'info' | 'debug' = 'info') =>
    requestLine[level](line, 'request');
  return {
    sendError,
    requestIdOf,
    logRequest,
    async requestLog(ctx, next) {
      const requestId = requestIdOf(ctx.get('Request-Id'));
      ctx.state.requestId = requestId;
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
          },
          isStaticAsset(ctx) ? 'debug' : 'info',
        );
      }
    },
    async httpsOnly(ctx, next) {
      if (opts.trustProxy && ctx.get('X-Forwarded-Proto').split(',')[0]?.trim().toLowerCase() === 'http')
        return sendError(ctx, 'HttpsRequired', httpsRequiredMessage(opts.publicUrl));
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
