// When a request reached the service, for the overload bound of CONTRACT §28 ("cannot start a request's work within
// 5 s"): for the first request on a connection, the moment the connection was accepted, so that a TLS handshake and
// a wait for a busy event loop count too; for a later request on a kept-alive connection, the moment it was read.
import type { IncomingMessage, ServerResponse } from 'node:http';

const acceptedAt = new WeakMap<object, number>();
const arrivedAt = new WeakMap<ServerResponse, number>();

/** The listener's `connection` event: a TCP connection accepted. */
export function markAccepted(socket: object): void {
  acceptedAt.set(socket, performance.now());
}

/** The request handler, first thing. A TLS socket is read from the TCP socket it wraps (`_parent`, Node's own). */
export function markArrived(req: IncomingMessage, res: ServerResponse): void {
  const raw = (req.socket as { _parent?: object })._parent ?? req.socket;
  const accepted = acceptedAt.get(raw);
  acceptedAt.delete(raw);
  arrivedAt.set(res, accepted ?? performance.now());
}

/** `performance.now()` when the request of `res` arrived; undefined for a response that was not marked. */
export const arrivalOf = (res: ServerResponse): number | undefined => arrivedAt.get(res);
