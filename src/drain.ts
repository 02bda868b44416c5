// Graceful close of a listener: stop accepting, let the requests in flight finish, and make keep-alive clients
// go (a steady client on a kept-alive connection would otherwise hold the process up); cut what is left late.
import type http from 'node:http';
import net from 'node:net';
import type { WebSocketServer } from 'ws';

/** How often connections left idle are closed during a drain; also the time a new connection has to speak. */
const IDLE_SWEEP_MS = 500;

export interface Drain {
  /** Called for every request: during the drain its connection is told to close after the response. */
  track(res: http.ServerResponse): void;
  /** Resolves once every connection has ended; those still open after `deadlineMs` are cut. */
  close(deadlineMs: number): Promise<void>;
}

export function drainOf(server: http.Server): Drain {
  const open = new Set<http.ServerResponse>();
  let closing = false;
  return {
    track(res) {
      if (closing) {
        res.setHeader('Connection', 'close');
        return;
      }
      open.add(res);
      res.once('close', () => open.delete(res));
    },
    close(deadlineMs) {
      closing = true;
      // Responses not yet started say Connection: close, and Node ends their socket after them.
      for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
      return new Promise((resolve) => {
        const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
        const cut = setTimeout(() => server.closeAllConnections(), deadlineMs);
        // net's close, not http's: http's also closes idle connections at once, and a connection just accepted
        // whose first request is still on its way counts as idle, so its request would be lost. Refused new
        // connections are safe for clients (nothing was sent); accepted ones get until the first sweep.
        net.Server.prototype.close.call(server, () => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
      });
    },
  };
}

/**
 * After graphql-ws has said goodbye (close 1001) to its clients: a peer that does not answer the closing
 * handshake within `deadlineMs` is cut, instead of holding shutdown for the library's 30 s.
 */
export function cutWebSocketsAfter(wss: WebSocketServer, deadlineMs: number): () => void {
  const timer = setTimeout(() => {
    for (const client of wss.clients) client.terminate();
  }, deadlineMs);
  return () => clearTimeout(timer);
}
