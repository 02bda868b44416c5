// CONTRACT §24 rules 1-4 and §25's schema rules, read from the catalog of the migrated test database: which tables
// hold car share data, their row-level security and policy, the app role, and that every key includes car_share_id.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const APP_ROLE = 'carshare_app';
const CURRENT = `(NULLIF(current_setting('carshare.car_share_id'::text, true), ''::text))::uuid`;

const db = new pg.Client({ connectionString: inject('databaseUrl') });
beforeAll(() => db.connect());
afterAll(() => db.end());

const rows = async <T>(text: string, values: unknown[] = []): Promise<T[]> =>
  (await db.query(text, values)).rows as T[];

/** The tables the catalog shows with a car_share_id column: what every rule below is about. */
const carShareTables = async (): Promise<string[]> =>
  (
    await rows<{ t: string }>(
      `select c.relname as t from pg_class c join pg_attribute a on a.attrelid = c.oid
        where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
          and a.attname = 'car_share_id' and not a.attisdropped order by 1`,
    )
  ).map((r) => r.t);

describe('rule 1: the tables holding car share data', () => {
  it('are every table but car_share, platform_audit_entry (§24 names it) and the migrations table', async () => {
    const all = (
      await rows<{ t: string }>(`select tablename as t from pg_tables where schemaname = 'public' order by 1`)
    ).map((r) => r.t);
    const tables = await carShareTables();
    expect(all.filter((t) => !tables.includes(t))).toEqual([
      'car_share',
      'mikro_orm_migrations',
      'platform_audit_entry',
    ]);
    expect(tables).toEqual(
      expect.arrayContaining([
        'audit_entry',
        'car',
        'car_booking',
        'car_lock_command',
        'client_application',
        'feedback',
        'oauth_consent',
        'oauth_key',
        'oauth_model',
        'outbox_event',
        'profile',
        'rating',
        'unavailability',
        'user_account',
        'verification',
        'webhook_attempt',
        'webhook_delivery',
        'webhook_secret_key',
        'webhook_subscription',
      ]),
    );
  });

  it('have car_share_id uuid not null, defaulting to the setting, referencing car_share (id)', async () => {
    const tables = await carShareTables();
    const cols = await rows<{ t: string; type: string; notnull: boolean; def: string | null }>(
      `select c.relname as t, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as notnull,
              pg_get_expr(d.adbin, d.adrelid) as def
         from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'car_share_id'
         left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
        where c.relname = any ($1) order by 1`,
      [tables],
    );
    for (const c of cols)
      expect(c, c.t).toEqual({
        t: c.t,
        type: 'uuid',
        notnull: true,
        def: CURRENT,
      });
    const fks = await rows<{ t: string }>(
      `select conrelid::regclass::text as t from pg_constraint
        where contype = 'f' and confrelid = 'car_share'::regclass
          and pg_get_constraintdef(oid) = 'FOREIGN KEY (car_share_id) REFERENCES car_share(id)'`,
    );
    expect(fks.map((f) => f.t).sort()).toEqual(tables);
  });
});

describe('rule 2: row-level security', () => {
  it('is enabled and forced on car_share and every table with car_share_id', async () => {
    const tables = [...(await carShareTables()), 'car_share'];
    const flags = await rows<{ t: string; rls: boolean; forced: boolean }>(
      `select relname as t, relrowsecurity as rls, relforcerowsecurity as forced from pg_class
        where relnamespace = 'public'::regnamespace and relname = any ($1) order by 1`,
      [tables],
    );
    expect(flags).toHaveLength(tables.length);
    for (const f of flags) expect(f, f.t).toEqual({ t: f.t, rls: true, forced: true });
  });

  it('has the one permissive policy car_share_isolation for all on each', async () => {
    const tables = await carShareTables();
    const policies = await rows<Record<string, unknown>>(
      `select tablename, policyname, permissive, roles, cmd, qual, with_check from pg_policies
        where schemaname = 'public' order by tablename, policyname`,
    );
    const expected = (t: string, column: string) => ({
      tablename: t,
      policyname: 'car_share_isolation',
      permissive: 'PERMISSIVE',
      roles: '{public}',
      cmd: 'ALL',
      qual: `(${column} = ${CURRENT})`,
      with_check: `(${column} = ${CURRENT})`,
    });
    expect(policies).toEqual(
      [...tables.map((t) => expected(t, 'car_share_id')), expected('car_share', 'id')].sort((a, b) =>
        a.tablename.localeCompare(b.tablename),
      ),
    );
  });
});

describe('rule 4: the app role', () => {
  it('is neither superuser nor BYPASSRLS, and cannot log in', async () => {
    expect(
      await rows(`select rolsuper, rolbypassrls, rolcanlogin from pg_roles where rolname = $1`, [APP_ROLE]),
    ).toEqual([{ rolsuper: false, rolbypassrls: false, rolcanlogin: false }]);
  });

  it('owns no table', async () => {
    expect(await rows(`select tablename from pg_tables where tableowner = $1`, [APP_ROLE])).toEqual([]);
  });

  it('may select, insert, update and delete the car share tables, and only select car_share', async () => {
    const privileges = await rows<{ t: string; s: boolean; i: boolean; u: boolean; d: boolean }>(
      `select t, has_table_privilege($1, t, 'SELECT') as s, has_table_privilege($1, t, 'INSERT') as i,
              has_table_privilege($1, t, 'UPDATE') as u, has_table_privilege($1, t, 'DELETE') as d
         from unnest($2::text[]) t order by 1`,
      [APP_ROLE, [...(await carShareTables()), 'car_share']],
    );
    for (const p of privileges)
      expect(p, p.t).toEqual(
        p.t === 'car_share'
          ? { t: p.t, s: true, i: false, u: false, d: false }
          : { t: p.t, s: true, i: true, u: true, d: true },
      );
  });

  it('can use the sequences of those tables, and the DATABASE_URL user can act as it', async () => {
    const seqs = await rows<{ s: string; usage: boolean }>(
      `select s.oid::regclass::text as s, has_sequence_privilege($1, s.oid, 'USAGE') as usage
         from pg_class s join pg_depend d on d.objid = s.oid and d.deptype in ('a', 'i')
         join pg_attribute a on a.attrelid = d.refobjid and a.attname = 'car_share_id'
        where s.relkind = 'S'`,
      [APP_ROLE],
    );
    expect(seqs).toEqual([{ s: 'outbox_event_seq_seq', usage: true }]);
    expect(await rows(`select pg_has_role(current_user, $1, 'MEMBER') as ok`, [APP_ROLE])).toEqual([
      { ok: true },
    ]);
  });
});

describe('rule 3 and §25: keys are per car share', () => {
  it('every primary key, unique constraint or index and exclusion constraint includes car_share_id', async () => {
    const tables = await carShareTables();
    const keys = await rows<{ t: string; name: string; has: boolean; first: boolean }>(
      `select i.indrelid::regclass::text as t, i.indexrelid::regclass::text as name,
              a.attnum = any (i.indkey::int2[]) as has, i.indkey[0] = a.attnum as first
         from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attname = 'car_share_id'
        where i.indrelid = any ($1::regclass[])
          and (i.indisunique or i.indisexclusion)`,
      [tables],
    );
    expect(keys.length).toBeGreaterThan(tables.length);
    expect(keys.filter((k) => !k.has || !k.first)).toEqual([]);
    const exclusions = await rows<{ def: string }>(
      `select pg_get_constraintdef(oid) as def from pg_constraint
        where contype = 'x' and conrelid = any ($1::regclass[])`,
      [tables],
    );
    expect(exclusions.map((x) => x.def)).toEqual([
      expect.stringMatching(
        /^EXCLUDE USING gist \(car_share_id WITH =, car_id WITH =, tstzrange\(.*\) WITH &&\)/,
      ),
    ]);
  });

  it('every foreign key between car share tables is composite with car_share_id on both sides', async () => {
    const tables = await carShareTables();
    const fks = await rows<{ name: string; from: string[]; to: string[]; target: string }>(
      `select c.conname as name, c.confrelid::regclass::text as target,
              array(select attname from unnest(c.conkey) with ordinality k(n, o)
                      join pg_attribute on attrelid = c.conrelid and attnum = k.n order by k.o)::text[] as "from",
              array(select attname from unnest(c.confkey) with ordinality k(n, o)
                      join pg_attribute on attrelid = c.confrelid and attnum = k.n order by k.o)::text[] as "to"
         from pg_constraint c
        where c.contype = 'f' and c.confrelid = any ($1::regclass[])`,
      [tables],
    );
    expect(fks.length).toBeGreaterThanOrEqual(13);
    for (const fk of fks) {
      expect(fk.from, fk.name).toEqual(['car_share_id', expect.any(String)]);
      expect(fk.to, fk.name).toEqual(['car_share_id', 'id']);
    }
  });

  it('no foreign key from car_share, or from a table without car_share_id, points into a car share table', async () => {
    const tables = await carShareTables();
    expect(
      await rows(
        `select conname from pg_constraint
          where contype = 'f' and confrelid = any ($1::regclass[]) and not (conrelid = any ($1::regclass[]))`,
        [tables],
      ),
    ).toEqual([]);
    expect(
      await rows(
        `select conname from pg_constraint where contype = 'f' and conrelid = 'car_share'::regclass`,
      ),
    ).toEqual([]);
  });

  it('sequences of car share tables are bigint', async () => {
    expect(
      await rows(
        `select sequencename from pg_sequences s join pg_depend d on d.objid = to_regclass(s.sequencename)
           and d.deptype in ('a', 'i')
           join pg_attribute a on a.attrelid = d.refobjid and a.attname = 'car_share_id'
          where s.schemaname = 'public' and s.data_type <> 'bigint'::regtype`,
      ),
    ).toEqual([]);
  });
});
