// CONTRACT §22–§23 with two instances on one database and one Redis: what the platform does through one instance is
// in force at the other by the time its answer is sent — a new car share answers there, a suspension refuses there,
// a reactivation serves again, a deletion leaves its host unknown and its Id unknown to the platform.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RestEnv, startRest } from '../rest-facade/support.js';
import { at, createCarShare, DEFAULT_HOST, platformUser } from './support.js';

let one: RestEnv;
let two: RestEnv;
beforeAll(async () => {
  // Both as production runs more than one: the same database, the same Redis under the same prefix.
  const env = {
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `carshare-test-${randomUUID()}:`,
    UNKNOWN_HOST: 'reject',
  };
  one = await startRest(env);
  two = await startRest(env);
}, 60_000);
afterAll(async () => {
  await one?.close();
  await two?.close();
});

describe('the platform with two instances', () => {
  it('a car share created, suspended, reactivated and deleted through one is so at the other at once', async () => {
    const token = one.tokenFor(platformUser());
    const atTwo = (host: string, path: string, accept = 'application/json') =>
      at(two, host, 'GET', path, { headers: { accept } });
    const name = `inst${randomUUID().slice(0, 8)}`;
    const host = `${name}.localhost`;
    // Before: the other instance knows no such host.
    expect((await atTwo(host, '/')).status).toBe(404);

    const created = await createCarShare(one, token, name);
    const id = created.CarShare.Id as string;
    const landing = await atTwo(host, '/');
    expect(landing.status).toBe(200);
    expect(landing.json).toMatchObject({ CarShareId: id, Name: `Car share ${name}` });
    // Its authorization server answers there too, under its own issuer, and so does its dashboard.
    const discovery = await atTwo(host, '/api/oauth/.well-known/openid-configuration');
    expect(discovery.status).toBe(200);
    expect(discovery.json.issuer).toBe(`${created.CarShare.BaseUrl}/api/oauth`);
    const jwks = await atTwo(host, '/api/oauth/jwks');
    expect(jwks.status).toBe(200);
    expect(jwks.json.keys.length).toBeGreaterThan(0);
    const dashboard = await atTwo(host, '/dashboard', 'text/html');
    expect([200, 303]).toContain(dashboard.status);

    const P = (method: string, path: string, body?: unknown) =>
      at(one, DEFAULT_HOST, method, `/platform/api/carshares/${id}${path}`, {
        token,
        ...(body === undefined ? {} : { body }),
      });
    expect((await P('PUT', '/suspend', { Reason: 'Under investigation' })).status).toBe(202);
    const refused = await atTwo(host, '/api/cars');
    expect(refused.status).toBe(403);
    expect(refused.json.ResponseStatus.ErrorCode).toBe('CarShareSuspended');

    expect((await P('PUT', '/reactivate')).status).toBe(202);
    // Served again: anonymous, so the car share's own answer is 401, not the suspension's 403.
    const served = await atTwo(host, '/api/cars');
    expect(served.status).toBe(401);
    expect((await atTwo(host, '/')).json).toMatchObject({ CarShareId: id });

    expect((await P('PUT', '/suspend', { Reason: 'Leaving' })).status).toBe(202);
    expect((await P('DELETE', '')).status).toBe(204);
    const gone = await atTwo(host, '/');
    expect(gone.status).toBe(404);
    expect(JSON.stringify(gone.json)).toContain('UnknownHost');
    const unknown = await at(two, DEFAULT_HOST, 'GET', `/platform/api/carshares/${id}`, {
      token: two.tokenFor(platformUser()),
    });
    expect(unknown.status).toBe(404);
  });
});
