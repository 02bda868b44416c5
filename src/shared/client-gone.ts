// A client that went away before its request was read or its answer written: its own doing, not a failure here.
// Such requests are counted as 499 (nginx's "client closed request") and logged at debug, never as a 500.
import type { IncomingMessage } from 'node:http';

/** The status of a request whose client went away first (Koa accepts any status from 100 to 999). */
export const CLIENT_CLOSED = 499;

/** What Node, raw-body (the body parsers) and stream helpers throw when the other end is gone. */
const GONE_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Whether `err` says the client went away: a code of a cut connection, and (when the request is known) its
 * connection really is gone, so that a reset from elsewhere (the database, a webhook target) still counts as ours.
 */
export function clientWentAway(err: unknown, req?: IncomingMessage): boolean {
  const e = err as { code?: unknown; type?: unknown } | null;
  const cut = (typeof e?.code === 'string' && GONE_CODES.has(e.code)) || e?.type === 'request.aborted';
  return cut && (req === undefined || req.destroyed || req.socket.destroyed);
}
