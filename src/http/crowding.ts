// Keep-alive only while the service is not crowded (CONTRACT §28 "Overload"): each open TLS connection holds about
// 60 KB outside V8's heap (OpenSSL's state, Node's buffers; glibc keeps it once grown), so 1,000 clients arriving
// at once, each kept alive for the keep-alive timeout after its answer, held 100 MB more than their answers needed
// and lifted resident memory past 300 MB (test/bench/overload.ts). While more connections are open than a busy
// deployment keeps (the bench's heaviest scenario holds 100), every answer closes its connection: a client that
// comes back pays a handshake, and the memory of one that does not is free for the next. Servers like Apache's
// event MPM do the same, for the same reason.

import type { ServerResponse } from 'node:http';
import type { Server } from 'node:net';

/** Open connections past which an answer closes its connection. */
export const CROWDED_AT = 256;

export interface Crowding {
  /** Connections open now, handshakes in progress included. */
  readonly open: number;
  /** Called as a request arrives: while crowded, its answer is sent with `Connection: close`. */
  answer(res: ServerResponse): void;
}

export function crowdingOf(server: Server, crowdedAt = CROWDED_AT): Crowding {
  let open = 0;
  // `connection` is the TCP accept, before any TLS handshake: a crowd of handshakes counts too.
  server.on('connection', (socket) => {
    open += 1;
    socket.once('close', () => {
      open -= 1;
    });
  });
  return {
    get open() {
      return open;
    },
    answer(res) {
      if (open > crowdedAt) res.shouldKeepAlive = false;
    },
  };
}
