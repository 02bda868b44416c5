// Large answers, text or encoded, go out in slices with the socket's backpressure (src/http/large-bodies.ts): the
// client gets the same bytes and Content-Length as from one write, a surrogate pair is never cut, HEAD and small answers are
// left to Koa, and a client that leaves half-way costs nothing but the slices already written.
import { once } from 'node:events';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, expect, it } from 'vitest';
import { sliceLargeBodies } from '../../src/http/large-bodies.js';

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** A server answering `body` as JSON through the middleware, counting the writes of each response. */
async function serve(body: string | Buffer): Promise<{ port: number; writes: number[] }> {
  const writes: number[] = [];
  const koa = new Koa();
  // A client that leaves is reported on Koa's error event (ECONNRESET), as for any answer cut short; not printed.
  koa.silent = true;
  koa.use(async (ctx, next) => {
    const res = ctx.res as ServerResponse & { write: (...a: unknown[]) => boolean };
    const write = res.write.bind(res);
    let n = 0;
    res.write = (...a: unknown[]) => {
      n += 1;
      return write(...(a as Parameters<typeof write>));
    };
    res.once('finish', () => writes.push(n));
    await next();
  });
  koa.use(sliceLargeBodies);
  koa.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = body;
  });
  server = createServer(koa.callback());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, writes };
}

function get(port: number, method = 'GET', leaveAfterFirstChunk = false) {
  return new Promise<{ status: number; length: string | undefined; bytes: Buffer }>((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (leaveAfterFirstChunk) req.destroy();
      });
      const done = () =>
        ok({ status: res.statusCode!, length: res.headers['content-length'], bytes: Buffer.concat(chunks) });
      res.on('end', done);
      res.on('close', done);
    });
    req.on('error', (e) => (leaveAfterFirstChunk ? undefined : fail(e)));
    req.end();
  });
}

// 300 KB of JSON text with two-byte characters and, at the first slice's end (16,384 UTF-16 units), an emoji.
const large = `"${'é'.repeat(16_383 - 1)}😀${'x'.repeat(300_000)}"`;

it('sends a large body in slices, byte for byte, with its Content-Length', async () => {
  const { port, writes } = await serve(large);
  const r = await get(port);
  expect(r.status).toBe(200);
  expect(r.bytes.equals(Buffer.from(large))).toBe(true);
  expect(r.length).toBe(String(Buffer.byteLength(large)));
  // 300 KB in 16 KB slices: many writes, not one.
  expect(writes[0]).toBeGreaterThan(15);
});

it('sends a large encoded body in slices of its own memory, byte for byte, with its Content-Length', async () => {
  const encoded = Buffer.from(large);
  const { port, writes } = await serve(encoded);
  const r = await get(port);
  expect(r.bytes.equals(encoded)).toBe(true);
  expect(r.length).toBe(String(encoded.length));
  expect(writes[0]).toBeGreaterThan(15);
});

it('leaves HEAD and small bodies to Koa (one write)', async () => {
  const small = JSON.stringify({ Cars: [] });
  const s = await serve(small);
  const r = await get(s.port);
  expect(r.bytes.toString()).toBe(small);
  expect(s.writes[0]).toBeLessThanOrEqual(1);
  server!.close();
  const l = await serve(large);
  const head = await get(l.port, 'HEAD');
  expect(head.bytes.length).toBe(0);
  expect(head.length).toBe(String(Buffer.byteLength(large)));
});

it('stops writing when the client leaves half-way, without an error', async () => {
  const big = `"${'y'.repeat(8_000_000)}"`;
  const { port } = await serve(big);
  const r = await get(port, 'GET', true);
  expect(r.bytes.length).toBeLessThan(Buffer.byteLength(big));
  // The server still answers the next request.
  const again = await get(port);
  expect(again.bytes.length).toBe(Buffer.byteLength(big));
});
