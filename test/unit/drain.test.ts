// The graceful close of a listener (src/drain.ts), on a real socket: the request in flight finishes and tells its
// kept-alive client to close, new connections are refused, and an idle kept-alive connection does not hold it up.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { drainOf } from '../../src/drain.js';

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.closeAllConnections();
});

async function serve() {
  let arrived!: () => void;
  const slowArrived = new Promise<void>((r) => {
    arrived = r;
  });
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  const server = http.createServer(async (req, res) => {
    drain.track(res);
    if (req.url === '/slow') {
      arrived();
      await released;
    }
    res.end('ok');
  });
  const drain = drainOf(server);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { drain, url, slowArrived, release };
}

describe('drainOf', () => {
  it('finishes the request in flight with Connection: close, then refuses new connections', async () => {
    const { drain, url, slowArrived, release } = await serve();
    const steady = new Agent({ connections: 1 });
    const first = await fetch(`${url}/fast`, { dispatcher: steady });
    expect(first.headers.get('connection')).toBe('keep-alive');
    await first.text();

    const slow = fetch(`${url}/slow`, { dispatcher: steady });
    await slowArrived;
    let closed = false;
    const closing = drain.close(10_000).then(() => {
      closed = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(false);
    release();
    const answered = await slow;
    expect(answered.status).toBe(200);
    expect(answered.headers.get('connection')).toBe('close');
    expect(await answered.text()).toBe('ok');

    const after = await fetch(`${url}/fast`, { dispatcher: steady }).catch(
      (e: { cause?: { code?: string } }) => e,
    );
    expect((after as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    await closing;
    expect(closed).toBe(true);
    await steady.close();
  });

  it('closes a kept-alive connection left idle instead of waiting for its client', async () => {
    const { drain, url } = await serve();
    const idle = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
    await (await fetch(`${url}/fast`, { dispatcher: idle })).text();
    const started = Date.now();
    // A deadline far beyond the idle sweep: only the sweep can end this close in time.
    await drain.close(30_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    await idle.close();
  });
});
