// CONTRACT §28 "Your own writes": after a caller's write is answered, no cached or shared answer (nor a 304) from
// before it reaches that caller, on one instance or across two sharing Redis. The race is made certain: a read of the
// page is held in flight with the rows as they were before the write (its statement, whose snapshot is taken as it
// starts, waits for an advisory lock the test holds before it reads them), the write is answered, the same caller
// asks for the page again, and only then is the held read let go. Before the fix the second GET joined the held read and got its body, or a 304 for its ETag.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../factories/accounts.js';
import { sql } from '../factories/cars.js';
import type { Harness } from '../support/harness.js';
import { scoped } from '../support/scope.js';
import { REST_CAR, type RestEnv, startRest } from './support.js';

const ROUNDS = 60;
/** An advisory lock key of this file's own. */
const HOLD = 610_283;
/** The statement of the next read to hold, once armed: the page's own (its cars and their embeds). */
let armed: RegExp | undefined;
const rewrite = (statement: string): string => {
  if (!armed?.test(statement)) return statement;
  armed = undefined;
  return `select q.* from (select pg_advisory_xact_lock_shared(${HOLD})) as hold, lateral (${statement}) as q`;
};

async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('waited 10 s in vain');
    await sleep(2);
  }
}

/** Takes the advisory lock in a transaction of its own, until let go. */
async function holdLock(h: Harness): Promise<() => Promise<void>> {
  let letGo: () => void = () => undefined;
  const released = new Promise<void>((ok) => {
    letGo = ok;
  });
  let taken: () => void = () => undefined;
  const held = new Promise<void>((ok) => {
    taken = ok;
  });
  const done = scoped(h.orm).transactional(async (em) => {
    await em
      .getConnection()
      .execute(`select pg_advisory_xact_lock(${HOLD})`, [], 'all', em.getTransactionContext());
    taken();
    await released;
  });
  await Promise.race([held, done]);
  return async () => {
    letGo();
    await done;
  };
}

/** Reads waiting for the advisory lock. */
const waiting = async (h: Harness): Promise<number> =>
  (
    await sql<{ n: number }>(
      h,
      `select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = ${HOLD} and not granted
         and database = (select oid from pg_database where datname = current_database())`,
    )
  )[0]!.n;

/**
 * Rounds of: the page as it is (`before`, another cache key with the same body); a read of the page held in flight
 * with the rows before the write; a PATCH of a car answered; the same caller's GET of the page (half of them revalidating
 * with `before`'s ETag); the held read let go. The GET after the write is never the held read's answer.
 */
async function rounds(reader: RestEnv, writer: RestEnv, owner: TestUser, redis: boolean) {
  const writerToken = writer.tokenFor(owner.actor);
  const readerToken = reader.tokenFor(owner.actor);
  const carId = (await writer.call('POST', '/api/cars', { token: writerToken, body: REST_CAR })).json.Car.Id;
  await writer.call('POST', '/api/cars', { token: writerToken, body: { ...REST_CAR, Model: 'Yaris' } });
  const modelOf = (r: { json: any }) => r.json.Cars.find((c: { Id: string }) => c.Id === carId)?.Model;
  let model = REST_CAR.Model;
  for (let round = 0; round < ROUNDS; round++) {
    // A page no read has asked for yet, so the held read is a miss.
    const page = `/api/cars?embed=all&limit=${10 + round}`;
    const before = await reader.call('GET', `${page}&offset=0`, { token: readerToken });
    expect(modelOf(before)).toBe(model);
    const release = await holdLock(reader.h);
    armed = /count\(\*\) over \(\)/;
    const held = reader.call('GET', page, { token: readerToken });
    await until(async () => (await waiting(reader.h)) > 0);

    const next = `Model ${round}`;
    const patch = await writer.call('PATCH', `/api/cars/${carId}`, {
      token: writerToken,
      body: { Model: next },
    });
    expect(patch.status).toBe(202);
    const revalidate = round % 2 === 0;
    const checks = reader.tokenChecks();
    // A token of its own, checked on arrival: once checked, the GET has joined whatever it was going to join (in
    // memory nothing between the check and the join waits; Redis's round trips get a moment more).
    const after = reader.call('GET', page, {
      token: reader.tokenFor(owner.actor),
      headers: revalidate ? { 'If-None-Match': before.headers.get('etag')! } : {},
    });
    await until(() => reader.tokenChecks() > checks);
    if (redis) await Promise.race([after, sleep(100)]);
    await release();

    const [old, fresh] = await Promise.all([held, after]);
    // The held read saw the rows before the write: the race took place.
    expect(modelOf(old), `round ${round}`).toBe(model);
    expect(fresh.status, `round ${round}`).toBe(200);
    expect(modelOf(fresh), `round ${round}`).toBe(next);
    if (revalidate) expect(fresh.headers.get('etag')).not.toBe(before.headers.get('etag'));
    model = next;
  }
}

describe('one instance', () => {
  let env: RestEnv;
  beforeAll(async () => {
    env = await startRest({}, { rewrite });
    await env.h.reset();
  });
  afterAll(() => env?.close());

  it(`${ROUNDS} rounds: a GET after one's own PATCH never gets a read in flight from before it, nor its 304`, async () => {
    await rounds(env, env, await createUser(env.h), false);
  });
});

describe('two instances sharing Redis', () => {
  // A database of its own on the machine's Redis, never flushed (others may share the server): the keys here are
  // per caller, and callers are new users.
  const REDIS_URL = 'redis://127.0.0.1:6379/12';
  let a: RestEnv;
  let b: RestEnv;
  beforeAll(async () => {
    a = await startRest({ REDIS_URL }, { rewrite });
    b = await startRest({ REDIS_URL }, { rewrite });
    await a.h.reset();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it(`${ROUNDS} rounds: a PATCH answered on one instance, then the GET on the other is never from before it`, async () => {
    await rounds(b, a, await createUser(a.h), true);
  });
});
