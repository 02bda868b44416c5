// The SQL budgets of issue 8 (research/performance.md §2.7), pinned without timing anything: a search of cars
// with every embed (S1) costs one statement, the same for 1, 10 and 100 cars, one car with every embed (S2)
// costs one, a failed read runs once, and concurrent misses of one page compute it once. `npm run bench` measures the same
// requests under load; this keeps them honest in CI.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { seedCars, sql } from '../factories/cars.js';
import { asClient } from '../support/actors.js';
import { useRest } from './support.js';

const env = useRest();
let token: string;
let carId: string;

beforeAll(async () => {
  const owners = [];
  for (let i = 0; i < 5; i++) owners.push((await createUser(env.h)).id);
  const ids = await seedCars(env.h, owners, 100);
  carId = ids[0]!;
  // Owners rated too, so every embedded Rating is a row (an unrated one is derived without SQL).
  await sql(
    env.h,
    `insert into rating (id, subject_type, subject_id, count, average, created_date_utc, last_modified_date_utc)
     select gen_random_uuid(), 'UserAccount', id, 3, 4.0, now(), now() from user_account`,
  );
  token = env.tokenFor(asClient(['cars:read']));
});

/** Statements one GET runs. Each path is asked once, so the server-side GET cache never answers. */
async function statements(path: string): Promise<{ count: number; body: any }> {
  env.sql.length = 0;
  const r = await env.call('GET', path, { token });
  expect(r.status).toBe(200);
  return { count: env.sql.length, body: r.json };
}

describe('SQL statements per request (issue 8 budgets)', () => {
  it('S1: a search with embed=all costs one statement, the same for 1, 10 and 100 cars', async () => {
    const counts = [];
    for (const limit of [1, 10, 100]) {
      const { count, body } = await statements(`/api/cars?embed=all&limit=${limit}`);
      expect(body.Cars).toHaveLength(limit);
      for (const c of body.Cars) {
        expect(c.Rating.Count).toBe(2);
        expect(c.Verifications).toHaveLength(2);
        expect(c.Owner.Rating.Count).toBe(3);
      }
      counts.push(count);
    }
    expect(counts).toEqual([1, 1, 1]);
  });

  it('concurrent requests for one uncached page compute it once (no stampede when an entry expires)', async () => {
    // Ten connections opened first, so the ten requests below reach the service together.
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => env.call('GET', `/api/cars?limit=${i + 1}`, { token })),
    );
    env.sql.length = 0;
    const path = '/api/cars?embed=all&limit=50';
    const replies = await Promise.all(Array.from({ length: 10 }, () => env.call('GET', path, { token })));
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    expect(env.sql.length).toBe(1);
  });

  it('a failed read runs once: a car that does not exist costs the one statement that finds nothing', async () => {
    env.sql.length = 0;
    const r = await env.call('GET', `/api/cars/${randomUUID()}`, { token });
    expect(r.status).toBe(404);
    expect(r.json.ResponseStatus.ErrorCode).toBe('NotFound');
    // Before, the error was shaped by running the read again through Apollo: two scans.
    expect(env.sql).toHaveLength(1);
  });

  it('S2: one car with every embed costs one statement', async () => {
    const { count, body } = await statements(`/api/cars/${carId}`);
    expect(body.Car.Id).toBe(carId);
    expect(body.Car.Owner.Rating.Count).toBe(3);
    expect(body.Car.Verifications).toHaveLength(2);
    expect(count).toBe(1);
  });
});
