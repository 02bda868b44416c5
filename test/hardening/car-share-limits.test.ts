// CONTRACT §20 "Rate limits" and "Redis": every window is its car share's (an IP refused at A's token endpoint still
// gets through at B's), a car share's Limits override the deployment's settings, a ceiling on all of a car share's
// requests answers 429 with Meta.Scope CarShare without slowing another, and with Redis every key and channel lives
// under REDIS_KEY_PREFIX (a car share's under its Id), so two deployments with other prefixes on one Redis do not
// meet.
import { randomUUID } from 'node:crypto';
import { type Client, createClient } from 'graphql-ws';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { PUBLIC_URL, type RestEnv, startRest } from '../rest-facade/support.js';
import { asOps } from '../support/actors.js';
import { addCarShare, atHost, type TestCarShare } from '../support/car-shares.js';

const DEFAULT_HOST = new URL(PUBLIC_URL).host;
const REDIS_URL = 'redis://127.0.0.1:6379';

async function started(env: Record<string, string>): Promise<RestEnv> {
  const e = await startRest(env);
  await e.h.reset();
  return e;
}

const add = (env: RestEnv, host: string, limits?: Record<string, number>) =>
  addCarShare({
    host,
    port: env.service.port,
    httpPort: env.service.httpPort,
    ...(limits ? { limits } : {}),
  });

describe('windows per car share, Limits, and the ceiling (counted in memory)', () => {
  let env: RestEnv;
  let b: TestCarShare;
  let c: TestCarShare;
  let d: TestCarShare;
  let e: TestCarShare;
  beforeAll(async () => {
    env = await started({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2', RATE_LIMIT_AUTH_PER_MINUTE: '2' });
    b = await add(env, 'b.localhost');
    c = await add(env, 'c.localhost');
    d = await add(env, 'd.localhost', { AnonymousPerMinute: 1 });
    e = await add(env, 'e.localhost', { CarSharePerMinute: 3 });
  });
  afterAll(async () => env?.close());
  const at = (cs: TestCarShare | string, path: string, init: Parameters<typeof atHost>[3] = {}) =>
    atHost(env.service.port, typeof cs === 'string' ? cs : cs.host, path, init);

  it('an IP has separate windows in each car share, token endpoint included', async () => {
    expect((await at(b, '/')).status).toBe(200);
    expect((await at(b, '/')).status).toBe(200);
    const refused = await at(b, '/', { headers: { Accept: 'application/json' } });
    expect(refused.status).toBe(429);
    expect(refused.json.ResponseStatus.ErrorCode).toBe('TooManyRequests');
    expect(refused.json.ResponseStatus.Meta.Scope).toBeUndefined();
    expect(refused.json.ResponseStatus.Meta.Help).toBe(`${b.baseUrl}/docs#error-TooManyRequests`);
    for (let i = 0; i < 2; i++) expect((await at(c, '/')).status).toBe(200);

    const token = (cs: TestCarShare) =>
      at(cs, '/api/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=nobody&client_secret=nothing',
      });
    for (let i = 0; i < 2; i++) expect((await token(b)).status).not.toBe(429);
    const slowed = await token(b);
    expect(slowed.status).toBe(429);
    expect(slowed.json.error).toBe('slow_down');
    expect((await token(c)).status).not.toBe(429);
  });

  it('a car share’s Limits override the deployment’s setting for it alone', async () => {
    const first = await at(d, '/');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('1');
    expect((await at(d, '/')).status).toBe(429);
    expect((await at(DEFAULT_HOST, '/')).headers.get('ratelimit-limit')).toBe('2');
  });

  it('past the car share’s ceiling: 429 Meta.Scope CarShare with Retry-After, whoever asks; others go on', async () => {
    // Each request from another caller: their own windows are far from full.
    const asNew = () => env.tokenFor(asOps());
    for (let i = 0; i < 3; i++) expect((await at(e, '/api/cars', { token: asNew() })).status).toBe(200);
    const refused = await at(e, '/api/cars', { token: asNew() });
    expect(refused.status).toBe(429);
    expect(refused.json.ResponseStatus).toMatchObject({
      ErrorCode: 'TooManyRequests',
      Meta: { Scope: 'CarShare' },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // RateLimit-* describe the caller's own window.
    expect(Number(refused.headers.get('ratelimit-remaining'))).toBeGreaterThan(1000);
    const gql = await at(e, '/graphql', {
      method: 'POST',
      token: asNew(),
      body: { query: '{ __typename }' },
    });
    expect(gql.status).toBe(429);
    expect(gql.json.errors[0].extensions).toMatchObject({ code: 'TooManyRequests', scope: 'CarShare' });
    const oauth = await at(e, '/api/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(oauth.status).toBe(429);
    expect(oauth.json.error).toBe('slow_down');
    // No other car share is slowed.
    expect((await at(c, '/api/cars', { token: asNew() })).status).toBe(200);
    expect((await at(DEFAULT_HOST, '/api/cars', { token: asNew() })).status).toBe(200);
  });
});

describe('RATE_LIMIT_CAR_SHARE_PER_MINUTE', () => {
  let env: RestEnv;
  let f: TestCarShare;
  let g: TestCarShare;
  beforeAll(async () => {
    env = await started({ RATE_LIMIT_CAR_SHARE_PER_MINUTE: '2' });
    f = await add(env, 'f.localhost');
    g = await add(env, 'g.localhost', { CarSharePerMinute: 10 });
  });
  afterAll(async () => env?.close());

  it('is every car share’s ceiling unless its Limits say otherwise', async () => {
    const at = (cs: TestCarShare) =>
      atHost(env.service.port, cs.host, '/', { headers: { Accept: 'application/json' } });
    expect((await at(f)).status).toBe(200);
    expect((await at(f)).status).toBe(200);
    const refused = await at(f);
    expect(refused.status).toBe(429);
    expect(refused.json.ResponseStatus.Meta.Scope).toBe('CarShare');
    for (let i = 0; i < 4; i++) expect((await at(g)).status).toBe(200);
  });
});

describe('graphql-ws', () => {
  let env: RestEnv;
  let b: TestCarShare;
  let c: TestCarShare;
  beforeAll(async () => {
    env = await started({ RATE_LIMIT_PER_MINUTE: '3' });
    b = await add(env, 'ws-b.localhost');
    c = await add(env, 'ws-c.localhost', { CarSharePerMinute: 2 });
  });
  afterAll(async () => env?.close());

  type Outcome = { data?: unknown; errors?: readonly { extensions?: { code?: string } }[] | undefined };
  /** A connection opened at `host` (its upgrade's Host header) with a bearer token. */
  const connect = (host: string, token: string): Client =>
    createClient({
      url: `wss://127.0.0.1:${env.service.port}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers: { host }, rejectUnauthorized: false });
        }
      },
      connectionParams: { Authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: false,
    });
  const run = (client: Client): Promise<Outcome> =>
    new Promise((resolve) => {
      let result: Outcome = {};
      client.subscribe(
        { query: '{ _ping }' },
        {
          next: (r) => {
            result = r as unknown as Outcome;
          },
          error: (errors) => resolve({ errors: errors as unknown as Outcome['errors'] }),
          complete: () => resolve(result),
        },
      );
    });

  it('a connection’s operations count in the window of the car share its upgrade addressed', async () => {
    const token = env.tokenFor(asOps());
    const atB = connect(b.host, token);
    for (let i = 0; i < 3; i++) expect((await run(atB)).data).toBeDefined();
    expect((await run(atB)).errors?.[0]?.extensions?.code).toBe('TooManyRequests');
    // The same token subject at the default car share: a window of its own.
    const atDefault = connect(DEFAULT_HOST, token);
    expect((await run(atDefault)).data).toBeDefined();
    // Each operation is a request against the car share's ceiling, whoever sends it.
    const one = connect(c.host, env.tokenFor(asOps()));
    const two = connect(c.host, env.tokenFor(asOps()));
    expect((await run(one)).data).toBeDefined();
    expect((await run(two)).data).toBeDefined();
    expect((await run(one)).errors?.[0]?.extensions?.code).toBe('TooManyRequests');
    for (const client of [atB, atDefault, one, two]) await client.dispose();
  });
});

describe('two deployments on one Redis, with other prefixes', () => {
  const run = randomUUID().slice(0, 8);
  const prefixX = `test-${run}-x:`;
  const prefixY = `test-${run}-y:`;
  let x: RestEnv;
  let y: RestEnv;
  let redis: Redis;
  let ceiling: TestCarShare;
  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    const env = { REDIS_URL, RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2' };
    x = await started({ ...env, REDIS_KEY_PREFIX: prefixX });
    y = await startRest({ ...env, REDIS_KEY_PREFIX: prefixY });
    ceiling = await add(x, 'ceiling.localhost', { CarSharePerMinute: 2 });
  });
  afterAll(async () => {
    await x?.close();
    await y?.close();
    for (const prefix of [prefixX, prefixY]) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await redis?.quit();
  });

  const keysOf = (prefix: string) => redis.keys(`${prefix}*`);

  it('count rate limits apart, under their own prefix and car share', async () => {
    const at = (env: RestEnv) => atHost(env.service.port, DEFAULT_HOST, '/');
    expect((await at(x)).status).toBe(200);
    expect((await at(x)).status).toBe(200);
    expect((await at(x)).status).toBe(429);
    expect((await at(y)).status).toBe(200);
    expect((await at(y)).status).toBe(200);
    const dflt = x.h.carShare.id;
    expect(await keysOf(prefixX)).toContain(`${prefixX}${dflt}:ratelimit:anonymous:ip:127.0.0.1`);
    expect(await keysOf(prefixY)).toContain(`${prefixY}${dflt}:ratelimit:anonymous:ip:127.0.0.1`);
    // The ceiling, counted in Redis too.
    const atCeiling = () => atHost(x.service.port, ceiling.host, '/', { token: x.tokenFor(asOps()) });
    expect((await atCeiling()).status).toBe(200);
    expect((await atCeiling()).status).toBe(200);
    const refused = await atCeiling();
    expect(refused.status).toBe(429);
    expect(refused.json.ResponseStatus.Meta.Scope).toBe('CarShare');
    expect(await keysOf(prefixX)).toContain(`${prefixX}${ceiling.id}:ratelimit:carshare`);
  });

  it('keep cached answers and their invalidation apart', async () => {
    const dflt = x.h.carShare.id;
    const opsX = x.tokenFor(asOps());
    const opsY = y.tokenFor(asOps());
    const first = await atHost(x.service.port, DEFAULT_HOST, '/api/cars', { token: opsX });
    expect(first.status).toBe(200);
    expect((await atHost(y.service.port, DEFAULT_HOST, '/api/cars', { token: opsY })).status).toBe(200);
    const cached = (prefix: string) =>
      keysOf(prefix).then((ks) => ks.filter((k) => k.startsWith(`${prefix}${dflt}:rest:cache:`)));
    expect((await cached(prefixX)).length).toBeGreaterThan(0);
    expect((await cached(prefixY)).length).toBeGreaterThan(0);
    // A write through X bumps X's versions of the default car share, not Y's. (Both run on one database here, so
    // Y's outbox relay may take the write's event and bump its webhook tags: only the write's own tags are looked at.)
    const versionsY = await redis.hgetall(`${prefixY}${dflt}:rest:cache:versions`);
    const signUp = await atHost(x.service.port, DEFAULT_HOST, '/api/useraccounts', {
      method: 'POST',
      body: {
        Username: `redis-${run}@example.com`,
        Password: 'a long and unusual passphrase',
        FirstName: 'A',
        LastName: 'B',
      },
    });
    expect(signUp.status).toBe(201);
    expect((await redis.hgetall(`${prefixX}${dflt}:rest:cache:versions`)).UserAccount).toBe('1');
    expect((await redis.hgetall(`${prefixY}${dflt}:rest:cache:versions`)).UserAccount).toBe(
      versionsY.UserAccount,
    );
    // Every key of either deployment is one of a car share's, under its prefix.
    const shape = (prefix: string) =>
      new RegExp(`^${prefix.replace(/[-:]/g, '\\$&')}[0-9a-f-]{36}:(ratelimit|rest:cache):`);
    for (const prefix of [prefixX, prefixY])
      for (const k of await keysOf(prefix)) expect(k).toMatch(shape(prefix));
  });
});
