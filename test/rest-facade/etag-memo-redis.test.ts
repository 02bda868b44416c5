// The REST cache in Redis with an instance's memo of its ETags (rest-facade/cache.ts, etag-memo.ts): the memo answers
// only a request that has passed the listening connection's barrier (`heard`), and a bump it hears voids it.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { etagOf } from '../../rest-facade/cache.js';
import { redisCache } from '../../rest-facade/cache.redis.js';
import { redisKeys } from '../../src/http/redis-keys.js';

const redis = new Redis('redis://127.0.0.1:6379/10');
const keys = redisKeys(`test-etag-memo-${process.pid}-${Date.now()}:`);
const announced: string[] = [];
let heard: (announcement?: string) => void = () => undefined;
const cache = redisCache(redis, keys, undefined, {
  announce: async (a) => void announced.push(a),
  hear: (handler) => {
    heard = handler;
    handler();
    return () => undefined;
  },
  listening: () => true,
});
const entry = { body: Buffer.from('{"Car":{}}'), headers: {}, etag: etagOf('{"Car":{}}', 'cs1') };

beforeAll(async () => {
  await cache.set('cs1', 'k', entry, await cache.versions('cs1', ['Car']), 60);
});
afterAll(async () => {
  const left = await redis.keys(`${keys.prefix}*`);
  if (left.length > 0) await redis.del(...left);
  await redis.quit();
});

/** Takes the entry and its ETag out of Redis: what answers then is the memo or nothing. */
const forget = async () => {
  const stored = (await redis.keys(`${keys.prefix}*`)).filter((k) => !k.endsWith('rest:cache:versions'));
  expect(stored.length).toBeGreaterThan(0);
  await redis.del(...stored);
};

it('memoizes an ETag read after the barrier, answers it to such requests only, and drops it at a bump', async () => {
  expect(await cache.etagOf('cs1', 'k', ['Car'], true)).toBe(entry.etag);
  await forget();
  // A request that has not passed the barrier reads Redis (nothing there now); one that has gets the memo.
  expect(await cache.etagOf('cs1', 'k', ['Car'], false)).toBeUndefined();
  expect(await cache.etagOf('cs1', 'k', ['Car'], true)).toBe(entry.etag);
  // Another instance's bump, heard: the memo goes.
  heard(JSON.stringify({ carShareId: 'cs1', tags: ['Car'] }));
  expect(await cache.etagOf('cs1', 'k', ['Car'], true)).toBeUndefined();
});

it('announces its own bumps to the other instances, after making them in Redis', async () => {
  await cache.set('cs1', 'k2', entry, await cache.versions('cs1', ['Booking']), 60);
  expect(await cache.etagOf('cs1', 'k2', ['Booking'], true)).toBe(entry.etag);
  await cache.invalidate('cs1', ['Booking']);
  expect(announced.map((a) => JSON.parse(a))).toContainEqual({ carShareId: 'cs1', tags: ['Booking'] });
  expect(await redis.hget(keys.carShare('cs1', 'rest:cache:versions'), 'Booking')).toBe('1');
  expect(await cache.etagOf('cs1', 'k2', ['Booking'], true)).toBeUndefined();
});
