// CONTRACT §19 "Upgrading": a part-two database keeps everything. Rows made before the car shares migration all
// become the default car share's, its keys still hold (now within it), and its scope reads them back.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { openOrm } from '../../src/db/orm.js';
import { entities } from '../../src/modules.js';

const dbName = `carshare_upgrade_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
const server = new URL(inject('databaseUrl'));
server.pathname = '/postgres';
const url = new URL(server);
url.pathname = `/${dbName}`;
const admin = new pg.Client({ connectionString: server.toString() });
const db = new pg.Client({ connectionString: url.toString() });

const owner = randomUUID();
const borrower = randomUUID();
const car = randomUUID();

beforeAll(async () => {
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const orm = await openOrm(url.toString(), entities as never);
  try {
    await orm.migrator.up({ to: 'Migration20261128000700_audit_cli' });
    await db.connect();
    await db.query(
      `insert into user_account (id, username, password_hash, roles, status, created_date_utc, last_modified_date_utc)
       values ($1, 'owner@example.com', 'x', '["user"]', 'Active', now(), now()),
              ($2, 'borrower@example.com', 'x', '["user"]', 'Active', now(), now())`,
      [owner, borrower],
    );
    await db.query(
      `insert into car (id, owner_id, make, model, year, transmission, seats, license_plate_jurisdiction,
         license_plate_number, home_address, home_latitude, home_longitude, hourly_rate_amount, hourly_rate_currency,
         minimum_booking_minutes, maximum_booking_minutes, status, created_date_utc, last_modified_date_utc)
       values ($1, $2, 'VW', 'Golf', 2020, 'Manual', 5, 'X', '1', 'Somewhere', 1, 1, 10, 'EUR', 60, 600, 'Listed',
         now(), now())`,
      [car, owner],
    );
    await db.query(
      `insert into car_booking (id, reference, car_id, borrower_id, owner_id, state, start_date_utc, end_date_utc,
         requested_date_utc, hourly_rate_amount, hourly_rate_currency, created_date_utc, last_modified_date_utc)
       values ($1, 'ABCDEFGH', $2, $3, $4, 'Approved', '2030-01-01', '2030-01-02', now(), 10, 'EUR', now(), now())`,
      [randomUUID(), car, borrower, owner],
    );
    await db.query(`insert into webhook_secret_key (id, key, created_date_utc) values (1, 'k', now())`);
    await db.query(
      `insert into oauth_key (kind, id, material, created_date_utc) values ('signing', 'k1', '{}', now())`,
    );
    await migrate(orm, url.toString());
  } finally {
    await orm.close(true);
  }
});

afterAll(async () => {
  await db.end().catch(() => undefined);
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
});

describe('upgrading a database made before car shares', () => {
  it('gives every row the default car share, the only one', async () => {
    const shares = (await db.query('select id, is_default, host, name from car_share')).rows;
    expect(shares).toEqual([{ id: expect.any(String), is_default: true, host: 'localhost', name: '' }]);
    const counts: { t: string; n: number }[] = [];
    for (const t of ['user_account', 'car', 'car_booking', 'webhook_secret_key', 'oauth_key']) {
      const { rows } = await db.query(`select count(*)::int as n from ${t} where car_share_id = $1`, [
        shares[0].id,
      ]);
      counts.push({ t, n: rows[0].n });
    }
    expect(counts).toEqual([
      { t: 'user_account', n: 2 },
      { t: 'car', n: 1 },
      { t: 'car_booking', n: 1 },
      { t: 'webhook_secret_key', n: 1 },
      { t: 'oauth_key', n: 1 },
    ]);
  });

  it("keeps the rules the keys held, now within the default car share's scope", async () => {
    const [share] = (await db.query('select id from car_share')).rows;
    await db.query('begin');
    try {
      await db.query(`select set_config('carshare.car_share_id', $1, true)`, [share.id]);
      await db.query('savepoint s');
      const overlap = await db
        .query(
          `insert into car_booking (id, reference, car_id, borrower_id, owner_id, state, start_date_utc, end_date_utc,
             requested_date_utc, hourly_rate_amount, hourly_rate_currency, created_date_utc, last_modified_date_utc)
           values ($1, 'ABCDEFGJ', $2, $3, $4, 'Approved', '2030-01-01 12:00', '2030-01-03', now(), 10, 'EUR', now(),
             now())`,
          [randomUUID(), car, borrower, owner],
        )
        .then(
          () => undefined,
          (e: { code?: string; constraint?: string }) => [e.code, e.constraint],
        );
      expect(overlap).toEqual(['23P01', 'car_booking_no_overlap']);
      await db.query('rollback to savepoint s');
      const username = await db
        .query(
          `insert into user_account (id, username, password_hash, roles, status, created_date_utc, last_modified_date_utc)
           values ($1, 'owner@example.com', 'x', '["user"]', 'Active', now(), now())`,
          [randomUUID()],
        )
        .then(
          () => undefined,
          (e: { code?: string; constraint?: string }) => [e.code, e.constraint],
        );
      expect(username).toEqual(['23505', 'user_account_username_key']);
    } finally {
      await db.query('rollback');
    }
  });
});
