// CORS_ORIGINS over real HTTP on a small Koa app: unset means no CORS header at all (even where a downstream
// answer sets its own), `*` is answered as `*`, and the configuration refuses what is not an origin.
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { cors, parseCorsOrigins } from '../../src/web/cors.js';

const servers: { close(): void }[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

/** A service whose answers, like the authorization server's, may carry their own CORS header. */
async function serve(origins: string | undefined): Promise<string> {
  const app = new Koa();
  app.use(cors(origins));
  app.use((ctx) => {
    if (ctx.path === '/api/oauth/jwks') ctx.set('Access-Control-Allow-Origin', '*');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 405;
      ctx.body = { ResponseStatus: { ErrorCode: 'MethodNotAllowed' } };
      return;
    }
    ctx.set('ETag', '"x"');
    ctx.body = { ok: true };
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const corsHeaders = (r: Response) => [...r.headers.keys()].filter((k) => k.startsWith('access-control-'));

describe('CORS_ORIGINS unset', () => {
  it('adds no CORS header, removes any set downstream, and answers OPTIONS as without CORS', async () => {
    const base = await serve(undefined);
    const origin = { origin: 'https://app.example' };
    const get = await fetch(`${base}/api/cars`, { headers: origin });
    const jwks = await fetch(`${base}/api/oauth/jwks`, { headers: origin });
    const pre = await fetch(`${base}/api/cars`, {
      method: 'OPTIONS',
      headers: { ...origin, 'access-control-request-method': 'GET' },
    });
    expect(pre.status).toBe(405);
    for (const r of [get, jwks, pre]) expect(corsHeaders(r)).toEqual([]);
  });
});

describe('CORS_ORIGINS=*', () => {
  it('answers any origin with `*`, preflights with 204, never with credentials', async () => {
    const base = await serve('*');
    const pre = await fetch(`${base}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: 'https://anyone.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const get = await fetch(`${base}/api/cars`, { headers: { origin: 'https://anyone.example' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    expect(get.headers.get('access-control-expose-headers')).toContain('ETag');
    // Preflights only where browser applications call; elsewhere OPTIONS answers as without CORS.
    const elsewhere = await fetch(`${base}/dashboard`, {
      method: 'OPTIONS',
      headers: { origin: 'https://anyone.example', 'access-control-request-method': 'POST' },
    });
    expect(elsewhere.status).toBe(405);
  });
});

describe('the configuration', () => {
  it('takes `*` or a comma list of origins, and refuses anything else naming CORS_ORIGINS', () => {
    expect(parseCorsOrigins(' * ')).toBe('*');
    expect(parseCorsOrigins('https://a.example, http://localhost:5173')).toEqual(
      new Set(['https://a.example', 'http://localhost:5173']),
    );
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example,http://localhost:5173' }).CORS_ORIGINS).toBe(
      'https://a.example,http://localhost:5173',
    );
    expect(() => loadConfig({ CORS_ORIGINS: 'a.example' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' })).toThrow(/CORS_ORIGINS/);
  });
});
