// Requests Node refuses before any middleware sees them (CONTRACT §13): headers over 16 KiB (a long URL
// included) are 431 `RequestHeaderFieldsTooLarge`, other malformed requests 400, each with a body and a
// `Request-Id`, written on the raw socket since no request object exists yet.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ResponseCode, responseStatus, statusOf } from './shared/errors.js';

/** Node's own default, stated so the limit is the contract's whatever the runtime's default becomes. */
export const MAX_HEADER_BYTES = 16 * 1024;

const OVERSIZED: readonly [ResponseCode, string] = [
  'RequestHeaderFieldsTooLarge',
  'Request headers are larger than 16 KiB',
];
const MALFORMED: readonly [ResponseCode, string] = [
  'InvalidFormat',
  'The request could not be parsed as HTTP',
];

/** Answer bodies kept: one pair per car share address recently answered. */
const KEPT = 64;

/**
 * The `clientError` listener of a server whose answers link to the docs (`Meta.Help`) under the BaseUrl of the car
 * share the connection addressed (`baseUrlOf`: from its TLS handshake's server name; PUBLIC_URL when none tells).
 * It answers then closes gently: the rest of what the client sends is read and dropped, so it sees the answer.
 */
export function clientErrorAnswer(baseUrlOf: (socket: Duplex) => string) {
  const made = new Map<string, { oversized: string; malformed: string }>();
  const bodiesOf = (baseUrl: string) => {
    let bodies = made.get(baseUrl);
    if (!bodies) {
      bodies = {
        oversized: JSON.stringify(responseStatus(baseUrl, ...OVERSIZED)),
        malformed: JSON.stringify(responseStatus(baseUrl, ...MALFORMED)),
      };
      if (made.size >= KEPT) made.clear();
      made.set(baseUrl, bodies);
    }
    return bodies;
  };
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const oversized = err.code === 'HPE_HEADER_OVERFLOW';
    const status = statusOf[(oversized ? OVERSIZED : MALFORMED)[0]];
    const bodies = bodiesOf(baseUrlOf(socket));
    const body = oversized ? bodies.oversized : bodies.malformed;
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Request-Id: ${randomUUID()}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    socket.resume();
    setTimeout(() => socket.destroy(), 2_000).unref();
  };
}
