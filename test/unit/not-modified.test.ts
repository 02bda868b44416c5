// The revalidations answered in front of Koa (src/not-modified.ts): the token is checked while the car shares
// settle, so that a cached check shares their barrier, and a car share that changed meanwhile leaves the request
// to Koa.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { anonymous } from '../../src/access/actor.js';
import type { CarShare } from '../../src/carshares/car-share.js';
import { answeringNotModified, type NotModifiedDeps } from '../../src/not-modified.js';

const carShare = (status: CarShare['status'] = 'Active'): CarShare => ({
  id: 'cs1',
  baseUrl: 'https://a.example',
  host: 'a.example',
  name: 'A',
  status,
  isDefault: true,
  limits: {},
  issuer: 'https://a.example/api/oauth',
});

/** A revalidation through the listener: what the car shares are before and after they settle, and what happened. */
function revalidation(before: CarShare, after: CarShare) {
  const order: string[] = [];
  let settle: () => void = () => undefined;
  let current = before;
  let koa = 0;
  const written: number[] = [];
  const deps: NotModifiedDeps<{ id: string }> = {
    facade: {
      revalidation: () => ({ id: 'r', request: { path: '/api/cars' }, template: '/api/cars' }),
      notModified: async () => ({ ETag: '"e"' }),
    },
    authenticator: {
      async actorFor() {
        order.push('token checked');
        return anonymous;
      },
    },
    rateLimiter: { count: () => ({ limit: 10, remaining: 9, reset: 60, passed: true }) },
    metrics: { arrived: () => undefined, passedOn: () => undefined, answered: () => undefined },
    edge: { requestIdOf: () => 'id', logRequest: () => undefined, carShareOf: () => current },
    trustProxy: false,
    settled: () =>
      new Promise<void>((ok) => {
        order.push('settling');
        settle = () => {
          current = after;
          order.push('settled');
          ok();
        };
      }),
    callers: new WeakMap(),
    counted: new WeakMap(),
    onError: (err) => {
      throw err;
    },
  };
  const listener = answeringNotModified(deps, () => {
    koa += 1;
  });
  const req = {
    method: 'GET',
    url: '/api/cars',
    headers: { 'if-none-match': '"e"', host: 'a.example' },
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  const res = {
    writeHead: (status: number) => written.push(status),
    end: () => undefined,
  } as unknown as ServerResponse;
  listener(req, res);
  return {
    order,
    settle: () => settle(),
    answered: async () => {
      await new Promise((ok) => setImmediate(ok));
      return { koa, written };
    },
  };
}

describe('a revalidation in front of Koa', () => {
  it('checks the token while the car shares settle, and answers 304 once they have', async () => {
    const cs = carShare();
    const r = revalidation(cs, cs);
    await new Promise((ok) => setImmediate(ok));
    expect(r.order).toEqual(['settling', 'token checked']);
    r.settle();
    expect(await r.answered()).toEqual({ koa: 0, written: [304] });
  });

  it('leaves the request to Koa when its car share changed while settling (suspended, or read again)', async () => {
    for (const after of [carShare('Suspended'), carShare()]) {
      const r = revalidation(carShare(), after);
      r.settle();
      expect(await r.answered()).toEqual({ koa: 1, written: [] });
    }
  });
});
