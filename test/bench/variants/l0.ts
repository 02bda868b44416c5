// L0, the wire limit: node's own HTTPS server answering pre-computed bytes (the service's own answers,
// captured by the harness) and, when If-None-Match names the ETag, a pre-computed 304.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

interface Canned {
  body: string;
  headers: Record<string, string>;
  etag: string;
}

/** Path (without query) → the answer; written by the harness. */
const canned = new Map(
  Object.entries(JSON.parse(readFileSync(process.env.L0_RESPONSES!, 'utf8')) as Record<string, Canned>).map(
    ([path, c]) => {
      const body = Buffer.from(c.body);
      const ok = { ...c.headers, etag: c.etag, 'content-length': String(body.length) };
      const notModified = {
        etag: c.etag,
        'cache-control': c.headers['cache-control'] ?? '',
        vary: c.headers.vary ?? '',
      };
      return [path, { body, ok, notModified, etag: c.etag }];
    },
  ),
);

const server = createServer(
  { key: readFileSync(process.env.TLS_KEY!), cert: readFileSync(process.env.TLS_CERT!) },
  (req, res) => {
    const q = req.url?.indexOf('?') ?? -1;
    const c = canned.get(q < 0 ? (req.url ?? '/') : req.url!.slice(0, q));
    if (!c) {
      res.writeHead(404).end();
      return;
    }
    if (req.headers['if-none-match'] === c.etag) res.writeHead(304, c.notModified).end();
    else res.writeHead(200, c.ok).end(c.body);
  },
);
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as { port: number }).port });
});
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
