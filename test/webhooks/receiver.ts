// A real local webhook receiver (node:http or node:https on loopback) that records every request it gets and
// answers as a test tells it: a status, a hang, a connection reset, a redirect, gzip…
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export type Reply =
  | { status: number; headers?: Record<string, string>; body?: string; gzip?: boolean; delayMs?: number }
  | 'hang'
  | 'reset';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as it arrived. */
  body: string;
  at: number;
  deliveryId: string;
  reply: Reply;
}

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** How the next requests are answered; `n` counts requests from 1. */
  reply: (r: Received, n: number) => Reply;
  connections: number;
  close(): Promise<void>;
}

export async function startReceiver(
  opts: { tls?: { key: string; cert: string }; reply?: Receiver['reply'] } = {},
): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>();
  const rx: Receiver = {
    url: '',
    port: 0,
    requests: [],
    reply: opts.reply ?? (() => ({ status: 200, body: 'ok' })),
    connections: 0,
    close: async () => undefined,
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        deliveryId: String(req.headers['x-webhook-delivery'] ?? ''),
        reply: 'hang',
      };
      rx.requests.push(r);
      const reply = rx.reply(r, rx.requests.length);
      r.reply = reply;
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      if (reply === 'reset') {
        req.socket.destroy();
        return;
      }
      const send = () => {
        const raw = Buffer.from(reply.body ?? '');
        const body = reply.gzip ? gzipSync(raw) : raw;
        res.writeHead(reply.status, {
          ...(reply.gzip ? { 'content-encoding': 'gzip' } : {}),
          ...reply.headers,
        });
        res.end(body);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  };
  const server = opts.tls ? https.createServer(opts.tls, handler) : http.createServer(handler);
  server.on('connection', () => {
    rx.connections += 1;
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  rx.port = (server.address() as AddressInfo).port;
  rx.url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${rx.port}`;
  rx.close = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return rx;
}
