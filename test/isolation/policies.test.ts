// CONTRACT §24 rule 2 at work: as carshare_app, a transaction sees and writes only the rows of the car share its
// `carshare.car_share_id` names, and nothing at all without it; composite foreign keys stop a row pointing across.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const APP_ROLE = 'carshare_app';
const db = new pg.Client({ connectionString: inject('databaseUrl') });

const A = randomUUID();
const B = randomUUID();
/** What each car share was given, by table: the rows its scope must read back exactly. */
const made: Record<string, Record<string, string[]>> = { [A]: {}, [B]: {} };

let tables: string[] = [];

const codeOf = async (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (e: { code?: string }) => e.code,
  );

/** Runs `work` as the app role in one transaction scoped to `carShareId` (or to none), then commits. */
async function inScope<T>(carShareId: string | null, work: () => Promise<T>): Promise<T> {
  await db.query('begin');
  try {
    await db.query(`set local role ${APP_ROLE}`);
    if (carShareId) await db.query(`select set_config('carshare.car_share_id', $1, true)`, [carShareId]);
    const out = await work();
    await db.query('commit');
    return out;
  } catch (e) {
    await db.query('rollback');
    throw e;
  }
}

/** Inserted in the scope, car_share_id left to its default. */
async function seed(carShareId: string): Promise<void> {
  const user = randomUUID();
  const car = randomUUID();
  await inScope(carShareId, async () => {
    await db.query(
      `insert into user_account (id, username, password_hash, roles, status, created_date_utc, last_modified_date_utc)
       values ($1, 'same@example.com', 'x', '["user"]', 'Active', now(), now())`,
      [user],
    );
    await db.query(
      `insert into profile (id, user_id, first_name, last_name, display_name, created_date_utc, last_modified_date_utc)
       values ($1, $2, 'A', 'B', 'A B', now(), now())`,
      [randomUUID(), user],
    );
    await db.query(
      `insert into car (id, owner_id, make, model, year, transmission, seats, license_plate_jurisdiction,
         license_plate_number, home_address, home_latitude, home_longitude, hourly_rate_amount, hourly_rate_currency,
         minimum_booking_minutes, maximum_booking_minutes, status, created_date_utc, last_modified_date_utc)
       values ($1, $2, 'VW', 'Golf', 2020, 'Manual', 5, 'X', '1', 'Somewhere', 1, 1, 10, 'EUR', 60, 600, 'Listed',
         now(), now())`,
      [car, user],
    );
    await db.query(
      `insert into audit_entry (id, occurred_date_utc, actor_type, action, subject_type, subject_id)
       values ($1, now(), 'Platform', 'test', 'Car', $2)`,
      [randomUUID(), car],
    );
  });
  for (const t of ['user_account', 'profile', 'car', 'audit_entry']) {
    const { rows } = await db.query(`select id from ${t} where car_share_id = $1`, [carShareId]);
    made[carShareId]![t] = rows.map((r: { id: string }) => r.id).sort();
  }
}

beforeAll(async () => {
  await db.connect();
  tables = (
    await db.query<{ t: string }>(
      `select c.relname as t from pg_class c join pg_attribute a on a.attrelid = c.oid
        where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and a.attname = 'car_share_id'
        order by 1`,
    )
  ).rows.map((r) => r.t);
  const suffix = randomUUID().slice(0, 8);
  for (const [id, name] of [
    [A, 'a'],
    [B, 'b'],
  ] as const)
    await db.query(`insert into car_share (id, base_url, host, name) values ($1, $2, $3, $4)`, [
      id,
      `https://${name}-${suffix}.cars.test`,
      `${name}-${suffix}.cars.test`,
      `Policy test ${name}`,
    ]);
  await seed(A);
  await seed(B);
});

afterAll(async () => {
  // As the owner (a superuser here): the car shares' rows, then the car shares.
  for (const t of tables) await db.query(`delete from ${t} where car_share_id = any ($1)`, [[A, B]]);
  await db.query('delete from car_share where id = any ($1)', [[A, B]]);
  await db.end();
});

describe('as the app role', () => {
  it('a transaction with no car share reads 0 rows of every table, car_share included', async () => {
    expect(tables.length).toBeGreaterThanOrEqual(19);
    const counts = await inScope(null, async () => {
      const out: Record<string, number> = {};
      for (const t of [...tables, 'car_share'])
        out[t] = Number((await db.query(`select count(*) as n from ${t}`)).rows[0].n);
      return out;
    });
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
  });

  it("a transaction in A reads exactly A's rows, and only A's car share", async () => {
    const seen = await inScope(A, async () => {
      const out: Record<string, string[]> = {};
      for (const t of tables)
        out[t] = (
          await db.query(
            `select coalesce(to_jsonb(x) ->> 'id', to_jsonb(x) ->> 'account_id') as id from ${t} x`,
          )
        ).rows
          .map((r: { id: string }) => r.id)
          .sort();
      out.car_share = (await db.query('select id::text as id from car_share')).rows.map(
        (r: { id: string }) => r.id,
      );
      return out;
    });
    for (const t of tables) expect(seen[t], t).toEqual(made[A]![t] ?? []);
    expect(seen.car_share).toEqual([A]);
  });

  it('the same username lives in both car shares, each its own account', async () => {
    expect(made[A]!.user_account).toHaveLength(1);
    expect(made[B]!.user_account).toHaveLength(1);
    expect(made[A]!.user_account).not.toEqual(made[B]!.user_account);
  });

  it("inserting a row with B's id, or moving a row to it, fails with 42501 in A's scope", async () => {
    const insert = inScope(A, () =>
      db.query(
        `insert into audit_entry (id, occurred_date_utc, actor_type, action, subject_type, subject_id, car_share_id)
         values ($1, now(), 'Platform', 'test', 'Car', $1, $2)`,
        [randomUUID(), B],
      ),
    );
    expect(await codeOf(insert)).toBe('42501');
    const move = inScope(A, () => db.query('update audit_entry set car_share_id = $1', [B]));
    expect(await codeOf(move)).toBe('42501');
    // And B's rows are out of reach: an update or delete from A touches none of them.
    const touched = await inScope(A, async () => {
      const u = await db.query('update car set make = make where car_share_id = $1', [B]);
      const d = await db.query('delete from audit_entry where car_share_id = $1', [B]);
      return (u.rowCount ?? 0) + (d.rowCount ?? 0);
    });
    expect(touched).toBe(0);
  });

  it('an insert with no car share fails (its car_share_id is null), and car_share itself is read-only', async () => {
    const orphan = inScope(null, () =>
      db.query(
        `insert into audit_entry (id, occurred_date_utc, actor_type, action, subject_type, subject_id)
         values ($1, now(), 'Platform', 'test', 'Car', $1)`,
        [randomUUID()],
      ),
    );
    expect(await codeOf(orphan)).toBe('42501');
    // The owner, whom no policy binds, gets the column's not-null instead: unscoped writes land nowhere.
    const owners = db.query(
      `insert into audit_entry (id, occurred_date_utc, actor_type, action, subject_type, subject_id)
       values ($1, now(), 'Platform', 'test', 'Car', $1)`,
      [randomUUID()],
    );
    expect(await codeOf(owners)).toBe('23502');
    const rename = inScope(A, () => db.query(`update car_share set name = 'x'`));
    expect(await codeOf(rename)).toBe('42501');
  });

  it('after COMMIT a transaction reads 0 rows again: SET LOCAL carries nothing over', async () => {
    await db.query(`set role ${APP_ROLE}`);
    try {
      await db.query('begin');
      await db.query(`select set_config('carshare.car_share_id', $1, true)`, [A]);
      expect(Number((await db.query('select count(*) as n from car')).rows[0].n)).toBe(1);
      await db.query('commit');
      for (const t of [...tables, 'car_share'])
        expect(Number((await db.query(`select count(*) as n from ${t}`)).rows[0].n), t).toBe(0);
    } finally {
      await db.query('rollback').catch(() => undefined);
      await db.query('reset role');
    }
  });
});

describe('composite foreign keys', () => {
  it("stop a row of A from pointing at B's row, even for a role that bypasses row-level security", async () => {
    // As the owner (superuser): no policy applies, only the key (car_share_id, owner_id) → user_account.
    const across = db.query(
      `insert into car (id, owner_id, make, model, year, transmission, seats, license_plate_jurisdiction,
         license_plate_number, home_address, home_latitude, home_longitude, hourly_rate_amount, hourly_rate_currency,
         minimum_booking_minutes, maximum_booking_minutes, status, created_date_utc, last_modified_date_utc,
         car_share_id)
       values ($1, $2, 'VW', 'Golf', 2020, 'Manual', 5, 'X', '1', 'Somewhere', 1, 1, 10, 'EUR', 60, 600, 'Listed',
         now(), now(), $3)`,
      [randomUUID(), made[B]!.user_account![0], A],
    );
    expect(await codeOf(across)).toBe('23503');
  });
});
