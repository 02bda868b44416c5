// CONTRACT §10 caching: strong ETags per representation, If-None-Match → 304, a per-caller server cache
// that runs no SQL on a hit, invalidated for every caller by mutations (across instances through Redis),
// and searches whose SQL cost does not grow with the page (embed=all).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../factories/accounts.js';
import { seedCars } from '../factories/cars.js';
import { asOps } from '../support/actors.js';
import { REST_CAR, type RestEnv, startRest, useRest } from './support.js';

describe('one instance', () => {
  const env = useRest({ resetEach: true });
  let owner: TestUser;
  let token: string;
  let opsToken: string;
  let carId: string;
  beforeEach(async () => {
    owner = await createUser(env.h);
    token = env.tokenFor(owner.actor);
    opsToken = env.tokenFor(asOps());
    carId = (await env.call('POST', '/api/cars', { token, body: REST_CAR })).json.Car.Id;
  });

  it('a 200 GET carries a strong quoted ETag, Cache-Control private max-age and Vary', async () => {
    const r = await env.call('GET', `/api/cars/${carId}`, { token });
    expect(r.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(r.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(r.headers.get('vary')).toBe('Accept, Authorization');
    const list = await env.call('GET', '/api/cars', { token });
    expect(list.headers.get('etag')).toMatch(/^"[^"]+"$/);
    const post = await env.call('POST', '/api/cars', { token, body: REST_CAR });
    expect(post.headers.get('etag')).toBeNull();
  });

  it('If-None-Match per RFC 9110: a match, W/, a list or * → 304 with no body; another tag → 200', async () => {
    const first = await env.call('GET', `/api/cars/${carId}`, { token });
    const etag = first.headers.get('etag')!;
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const r = await env.call('GET', `/api/cars/${carId}`, { token, headers: { 'If-None-Match': inm } });
      expect(r.status, inm).toBe(304);
      expect(r.text).toBe('');
      expect(r.headers.get('etag')).toBe(etag);
      expect(r.headers.get('cache-control')).toMatch(/max-age/);
    }
    const miss = await env.call('GET', `/api/cars/${carId}`, {
      token,
      headers: { 'If-None-Match': '"nope"' },
    });
    expect(miss.status).toBe(200);
    expect(miss.headers.get('etag')).toBe(etag);
    expect(miss.text).toBe(first.text);
  });

  it('the ETag differs per format; the JSON tag does not match the XML representation', async () => {
    const json = await env.call('GET', `/api/cars/${carId}`, { token });
    const xml = await env.call('GET', `/api/cars/${carId}?format=xml`, { token });
    expect(xml.headers.get('etag')).not.toBe(json.headers.get('etag'));
    const r = await env.call('GET', `/api/cars/${carId}?format=xml`, {
      token,
      headers: { 'If-None-Match': json.headers.get('etag')! },
    });
    expect(r.status).toBe(200);
  });

  it('a cache hit and a 304 run no SQL; a key’s first answer is kept as its ETag, its body from the second', async () => {
    const first = await env.call('GET', `/api/cars/${carId}`, { token });
    env.sql.length = 0;
    // The first answer left its ETag: a revalidation needs nothing more.
    const early = await env.call('GET', `/api/cars/${carId}`, {
      token,
      headers: { 'If-None-Match': first.headers.get('etag')! },
    });
    expect(early.status).toBe(304);
    expect(env.sql).toEqual([]);
    // Not its body: the second GET runs the query, and its answer is kept whole.
    const second = await env.call('GET', `/api/cars/${carId}`, { token });
    expect(second.text).toBe(first.text);
    expect(env.sql.length).toBeGreaterThan(0);
    env.sql.length = 0;
    const hit = await env.call('GET', `/api/cars/${carId}`, { token });
    expect(hit.status).toBe(200);
    expect(hit.text).toBe(first.text);
    expect(hit.headers.get('etag')).toBe(first.headers.get('etag'));
    const notModified = await env.call('GET', `/api/cars/${carId}`, {
      token,
      headers: { 'If-None-Match': first.headers.get('etag')! },
    });
    expect(notModified.status).toBe(304);
    expect(env.sql).toEqual([]);
    // A different caller has its own entry: that one runs the query.
    await env.call('GET', `/api/cars/${carId}`, { token: opsToken });
    expect(env.sql.length).toBeGreaterThan(0);
  });

  it('a PATCH makes the next GET fresh for every caller', async () => {
    const mine = await env.call('GET', `/api/cars/${carId}`, { token });
    const ops = await env.call('GET', `/api/cars/${carId}`, { token: opsToken });
    const list = await env.call('GET', '/api/cars', { token: opsToken });
    const p = await env.call('PATCH', `/api/cars/${carId}`, { token, body: { Model: 'Yaris' } });
    expect(p.status).toBe(202);
    for (const [t, before, path] of [
      [token, mine, `/api/cars/${carId}`],
      [opsToken, ops, `/api/cars/${carId}`],
      [opsToken, list, '/api/cars'],
    ] as const) {
      const r = await env.call('GET', path, {
        token: t,
        headers: { 'If-None-Match': before.headers.get('etag')! },
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('etag')).not.toBe(before.headers.get('etag'));
      expect(r.text).toContain('Yaris');
    }
  });

  it('a mutation through /graphql makes cached REST GETs stale too', async () => {
    const before = await env.call('GET', `/api/cars/${carId}`, { token: opsToken });
    const g = await env.call('POST', '/graphql', {
      token,
      body: {
        query: 'mutation($id: UUID!) { updateCar(id: $id, input: { model: "Camry" }) { id model } }',
        variables: { id: carId },
      },
    });
    expect(g.json.data.updateCar.model).toBe('Camry');
    const after = await env.call('GET', `/api/cars/${carId}`, { token: opsToken });
    expect(after.json.Car.Model).toBe('Camry');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  it('a change to an embedded resource (the profile) makes the account stale', async () => {
    const before = await env.call('GET', `/api/useraccounts/${owner.id}`, { token });
    await env.call('PATCH', `/api/profiles/${owner.profileId}`, { token, body: { FirstName: 'Augusta' } });
    const after = await env.call('GET', `/api/useraccounts/${owner.id}`, { token });
    expect(after.json.UserAccount.Profile.FirstName).toBe('Augusta');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  it('GET /api/cars?embed=all costs the same number of statements for 10 and 100 cars', async () => {
    const owners = [owner.id, (await createUser(env.h)).id, (await createUser(env.h)).id];
    await seedCars(env.h, owners, 100);
    const count = async (limit: number) => {
      env.sql.length = 0;
      const r = await env.call('GET', `/api/cars?embed=all&limit=${limit}`, { token: opsToken });
      expect(r.status).toBe(200);
      expect(r.json.Cars).toHaveLength(limit);
      expect(r.json.Cars.every((c: any) => c.Rating && c.Verifications.length > 0 && c.Owner?.Rating)).toBe(
        true,
      );
      return env.sql.length;
    };
    const ten = await count(10);
    const hundred = await count(100);
    expect(hundred).toBe(ten);
    expect(ten).toBeLessThanOrEqual(8);
  });
});

describe('two instances sharing Redis', () => {
  const REDIS_URL = 'redis://127.0.0.1:6379/7';
  let a: RestEnv;
  let b: RestEnv;
  beforeAll(async () => {
    const redis = new Redis(REDIS_URL);
    await redis.flushdb();
    await redis.quit();
    a = await startRest({ REDIS_URL });
    b = await startRest({ REDIS_URL });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  /** An owner's tokens on both instances, and their car's page as A answered it (cached, in Redis). */
  const carSeenOnA = async () => {
    await a.h.reset();
    const owner = await createUser(a.h);
    const ta = a.tokenFor(owner.actor);
    const tb = b.tokenFor(owner.actor);
    const carId = (await a.call('POST', '/api/cars', { token: ta, body: REST_CAR })).json.Car.Id;
    const path = `/api/cars/${carId}`;
    // Asked for twice: a key's first answer leaves its ETag in Redis, the second its body too.
    await a.call('GET', path, { token: ta });
    const etag = (await a.call('GET', path, { token: ta })).headers.get('etag')!;
    return { ta, tb, path, etag };
  };

  it('a key asked for once leaves only its ETag in Redis, not its body', async () => {
    await a.h.reset();
    const owner = await createUser(a.h);
    const ta = a.tokenFor(owner.actor);
    const carId = (await a.call('POST', '/api/cars', { token: ta, body: REST_CAR })).json.Car.Id;
    const redis = new Redis(REDIS_URL);
    try {
      // Keys are digests: what one GET adds is counted instead.
      const count = async () => {
        const ks = await redis.keys('*rest:cache:*');
        const etags = ks.filter((k) => k.includes('rest:cache:etag:')).length;
        return { etags, bodies: ks.filter((k) => !k.endsWith('rest:cache:versions')).length - etags };
      };
      const before = await count();
      const added = async () => {
        const now = await count();
        return { etags: now.etags - before.etags, bodies: now.bodies - before.bodies };
      };
      await a.call('GET', `/api/cars/${carId}`, { token: ta });
      expect(await added()).toEqual({ etags: 1, bodies: 0 });
      await a.call('GET', `/api/cars/${carId}`, { token: ta });
      expect(await added()).toEqual({ etags: 1, bodies: 1 });
    } finally {
      await redis.quit();
    }
  });

  it('a PATCH on one instance makes the other instance’s next GET fresh', async () => {
    await a.h.reset();
    const owner = await createUser(a.h);
    const ta = a.tokenFor(owner.actor);
    const tb = b.tokenFor(owner.actor);
    const carId = (await a.call('POST', '/api/cars', { token: ta, body: REST_CAR })).json.Car.Id;
    await b.call('GET', `/api/cars/${carId}`, { token: tb });
    const onB = await b.call('GET', `/api/cars/${carId}`, { token: tb });
    // The entry B stored (whole from its second answer) is a hit on A as well: the cache is shared.
    a.sql.length = 0;
    const onA = await a.call('GET', `/api/cars/${carId}`, { token: ta });
    expect(onA.text).toBe(onB.text);
    expect(a.sql).toEqual([]);
    expect(
      (await a.call('PATCH', `/api/cars/${carId}`, { token: ta, body: { Model: 'Prius' } })).status,
    ).toBe(202);
    const fresh = await b.call('GET', `/api/cars/${carId}`, { token: tb });
    expect(fresh.json.Car.Model).toBe('Prius');
    expect(fresh.headers.get('etag')).not.toBe(onB.headers.get('etag'));
  });

  it('a revalidation reads only the ETag from Redis, counts once, and is stale after a write on the other instance', async () => {
    const { ta, tb, path, etag } = await carSeenOnA();
    // The entries' bodies leave Redis; their ETags stay: a 304 needs nothing more.
    const redis = new Redis(REDIS_URL);
    try {
      const bodies = (await redis.keys('*rest:cache:*')).filter(
        (k) => !k.includes('rest:cache:etag:') && !k.endsWith('rest:cache:versions'),
      );
      expect(bodies.length).toBeGreaterThan(0);
      await redis.del(...bodies);
    } finally {
      await redis.quit();
    }
    const conditional = { token: tb, headers: { 'If-None-Match': etag } };
    // An instance answers a caller far from its limit from what Redis last said, trusted for a second
    // (rest-facade/ratelimit.redis.ts): once it has lapsed, B's next count is Redis's, A's requests included, and
    // the remainders B tells after it are exact.
    const viewsLapse = () => new Promise((r) => setTimeout(r, 1_100));
    await viewsLapse();
    b.sql.length = 0;
    const first = await b.call('GET', path, conditional);
    const second = await b.call('GET', path, conditional);
    expect([first.status, second.status]).toEqual([304, 304]);
    // Not computed again (which would give the same ETag): answered from what Redis held.
    expect(b.sql).toEqual([]);
    expect(first.headers.get('etag')).toBe(etag);
    // Counted once each in the shared counters, by whichever path answered it.
    const remaining = (r: typeof first) => Number(r.headers.get('ratelimit-remaining'));
    expect(remaining(first) - remaining(second)).toBe(1);
    expect((await a.call('PATCH', path, { token: ta, body: { Model: 'Prius' } })).status).toBe(202);
    await viewsLapse();
    const after = await b.call('GET', path, conditional);
    expect(after.status).toBe(200);
    expect(after.json.Car.Model).toBe('Prius');
    // A revalidation that is not a 304 after all goes on to Koa counted once, not again there.
    const again = await b.call('GET', path, conditional);
    expect(again.status).toBe(200);
    expect(remaining(after) - remaining(again)).toBe(1);
  });

  it('an instance memoizes the ETags it read from Redis until a write on any instance bumps their tags', async () => {
    const { ta, tb, path, etag } = await carSeenOnA();
    const conditional = { token: tb, headers: { 'If-None-Match': etag } };
    expect((await b.call('GET', path, conditional)).status).toBe(304);
    // Redis no longer holds the entry nor its ETag: B answers from what it read, where it would otherwise compute
    // the page again (the same ETag, after SQL).
    const redis = new Redis(REDIS_URL);
    try {
      const entries = (await redis.keys('*rest:cache:*')).filter((k) => !k.endsWith('rest:cache:versions'));
      expect(entries.length).toBeGreaterThan(0);
      await redis.del(...entries);
    } finally {
      await redis.quit();
    }
    b.sql.length = 0;
    expect((await b.call('GET', path, conditional)).status).toBe(304);
    expect(b.sql).toEqual([]);
    // A write on A: B hears of it before it answers again, and reads afresh.
    expect((await a.call('PATCH', path, { token: ta, body: { Model: 'Prius' } })).status).toBe(202);
    const after = await b.call('GET', path, conditional);
    expect(after.status).toBe(200);
    expect(after.json.Car.Model).toBe('Prius');
  });
});
