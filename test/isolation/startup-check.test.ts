// CONTRACT §24 rules 4 and 6 at start: openDatabase makes and grants the app role, and refuses (IsolationError,
// naming the table or the role) a database whose tables do not enforce isolation or whose app role could bypass it.
// On a database of its own, made and migrated here, so breaking it disturbs no other test.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { IsolationError } from '../../src/db/isolation.check.js';
import { entities } from '../../src/modules.js';

const suffix = randomUUID().replaceAll('-', '').slice(0, 10);
const dbName = `carshare_check_${suffix}`;
const server = new URL(inject('databaseUrl'));
server.pathname = '/postgres';
const url = new URL(server);
url.pathname = `/${dbName}`;
/** Throwaway roles, made (or made into what each test needs) here and dropped at the end. */
const roles = { fresh: `cs_fresh_${suffix}`, bypass: `cs_bypass_${suffix}`, owner: `cs_owner_${suffix}` };

const dataDir = mkdtempSync(join(tmpdir(), 'carshare-check-'));
const admin = new pg.Client({ connectionString: server.toString() });
const db = new pg.Client({ connectionString: url.toString() });

/** Opens the database as a start does (migrate, app role, check), closes it, and says what the start threw. */
async function start(appRole?: string): Promise<Error | undefined> {
  try {
    const opened = await openDatabase({
      databaseUrl: url.toString(),
      dataDir,
      entities,
      ...(appRole ? { appRole } : {}),
    });
    await opened.close();
    return undefined;
  } catch (e) {
    return e as Error;
  }
}

beforeAll(async () => {
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  expect(await start()).toBeUndefined();
  await db.connect();
});

afterAll(async () => {
  await db.end().catch(() => undefined);
  await admin.query(`drop database if exists ${dbName} with (force)`);
  for (const r of Object.values(roles)) await admin.query(`drop role if exists ${r}`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the start-up check', () => {
  it('passes on a migrated database, and a second start changes no grant', async () => {
    const acl = async () =>
      (await db.query(`select relname, relacl::text from pg_class where relname in ('car', 'car_share')`))
        .rows;
    const before = await acl();
    expect(await start()).toBeUndefined();
    expect(await acl()).toEqual(before);
  });

  it('refuses a table whose row-level security is not forced, naming it', async () => {
    await db.query('alter table car no force row level security');
    try {
      const e = await start();
      expect(e).toBeInstanceOf(IsolationError);
      expect(e!.message).toMatch(/table car does not force row-level security/);
      expect(e!.message).not.toMatch(/table car_booking/);
    } finally {
      await db.query('alter table car force row level security');
    }
  });

  it('refuses a table without the policy, or with another permissive one beside it, naming it', async () => {
    await db.query('drop policy car_share_isolation on feedback');
    await db.query('create policy everyone on rating using (true)');
    await db.query('alter table car_share disable row level security');
    try {
      const e = await start();
      expect(e).toBeInstanceOf(IsolationError);
      expect(e!.message).toMatch(/table feedback lacks the policy car_share_isolation/);
      expect(e!.message).toMatch(/table rating has another permissive policy, everyone/);
      expect(e!.message).toMatch(/table car_share does not have row-level security enabled/);
    } finally {
      await db.query(`create policy car_share_isolation on feedback as permissive for all
        using (car_share_id = nullif(current_setting('carshare.car_share_id', true), '')::uuid)
        with check (car_share_id = nullif(current_setting('carshare.car_share_id', true), '')::uuid)`);
      await db.query('drop policy everyone on rating');
      await db.query('alter table car_share enable row level security');
    }
    // A restrictive policy only narrows what the isolation policy lets through: allowed.
    await db.query('create policy trap on car as restrictive using (false)');
    try {
      expect(await start()).toBeUndefined();
    } finally {
      await db.query('drop policy trap on car');
    }
  });

  it('makes a missing app role NOSUPERUSER NOBYPASSRLS NOLOGIN and grants it the car share tables', async () => {
    expect(await start(roles.fresh)).toBeUndefined();
    const { rows } = await db.query(
      `select rolsuper, rolbypassrls, rolcanlogin, has_table_privilege(oid, 'car', 'DELETE') as car,
              has_table_privilege(oid, 'car_share', 'UPDATE') as registry
         from pg_roles where rolname = $1`,
      [roles.fresh],
    );
    expect(rows).toEqual([
      { rolsuper: false, rolbypassrls: false, rolcanlogin: false, car: true, registry: false },
    ]);
  });

  it('refuses an app role with BYPASSRLS, naming it', async () => {
    await admin.query(`create role ${roles.bypass} nologin bypassrls`);
    const e = await start(roles.bypass);
    expect(e).toBeInstanceOf(IsolationError);
    expect(e!.message).toContain(`DATABASE_APP_ROLE "${roles.bypass}" has BYPASSRLS`);
  });

  it('refuses an app role that owns a car share table, naming it', async () => {
    await admin.query(`create role ${roles.owner} nologin`);
    await db.query(`alter table audit_entry owner to ${roles.owner}`);
    try {
      const e = await start(roles.owner);
      expect(e).toBeInstanceOf(IsolationError);
      expect(e!.message).toContain(`DATABASE_APP_ROLE "${roles.owner}" owns the table audit_entry`);
    } finally {
      await db.query('alter table audit_entry owner to current_user');
    }
  });
});
