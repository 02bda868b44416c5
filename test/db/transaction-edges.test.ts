// A transaction's edges in fewer round trips (src/db/transaction-edges.ts): BEGIN and the car share scope go with
// the transaction's first statement in one batch, NOTIFY with COMMIT, and a transaction with no statement sends
// nothing. Counted as PostgreSQL's ReadyForQuery messages (one per round trip) on a pooled connection, against
// what each statement sees: the role and car share of its scope, in the transaction it was sent in.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { mergeTransactionEdges } from '../../src/db/transaction-edges.js';

const ROLE = 'carshare_edges_probe';
let pool: pg.Pool;
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: inject('databaseUrl') });
  await admin.connect();
  await admin.query(
    `do $$ begin if not exists (select 1 from pg_roles where rolname = '${ROLE}') then create role ${ROLE} nologin; end if; end $$`,
  );
  pool = new pg.Pool({ connectionString: inject('databaseUrl'), max: 1 });
  pool.on('acquire', mergeTransactionEdges);
});
afterAll(async () => {
  await pool?.end();
  await admin?.end();
});

/** A pooled client and the round trips it has made since `counted` was last read. */
async function connection() {
  const client = await pool.connect();
  let trips = 0;
  const wire = (client as unknown as { connection: { on(e: string, f: () => void): void } }).connection;
  wire.on('readyForQuery', () => {
    trips += 1;
  });
  return {
    client,
    counted() {
      const n = trips;
      trips = 0;
      return n;
    },
  };
}

const scope = (id: string) => `set local role "${ROLE}"; set local carshare.car_share_id = '${id}'`;
const SEEN = `select current_user as role, current_setting('carshare.car_share_id', true) as car_share, $1::int as n`;

it('sends BEGIN and the scope with the first statement: one round trip, which sees its scope', async () => {
  const { client, counted } = await connection();
  try {
    const id = randomUUID();
    await client.query('begin');
    await client.query(scope(id));
    expect(counted()).toBe(0);
    const first = await client.query({ name: 'edges_seen', text: SEEN }, [1]);
    expect(first.rows).toEqual([{ role: ROLE, car_share: id, n: 1 }]);
    expect(counted()).toBe(1);
    // Later statements are in the same transaction block (a local setting would have ended with the batch's
    // implicit transaction otherwise), in the same scope.
    const second = await client.query(SEEN, [2]);
    expect(second.rows).toEqual([{ role: ROLE, car_share: id, n: 2 }]);
    await client.query("select pg_notify('carshare_edges_probe', 'x')");
    expect(counted()).toBe(1);
    await client.query('commit');
    expect(counted()).toBe(1);
    // SET LOCAL ended with the transaction.
    const after = await client.query(SEEN, [3]);
    expect(after.rows[0]).toMatchObject({ car_share: '' });
    expect(after.rows[0].role).not.toBe(ROLE);
    // The same named statement again, in another transaction: prepared once, answered again.
    await client.query('begin');
    await client.query(scope(id));
    expect((await client.query({ name: 'edges_seen', text: SEEN }, [4])).rows[0]).toMatchObject({ n: 4 });
    await client.query('rollback');
  } finally {
    client.release();
  }
});

it('sends nothing for a transaction that ran no statement', async () => {
  const { client, counted } = await connection();
  try {
    await client.query('begin');
    await client.query(scope(randomUUID()));
    await client.query('commit');
    await client.query('begin');
    await client.query('rollback');
    expect(counted()).toBe(0);
  } finally {
    client.release();
  }
});

it('answers a first statement that fails with its error, and the transaction rolls back', async () => {
  const { client } = await connection();
  const table = `edges_probe_${randomUUID().slice(0, 8)}`;
  await admin.query(`create table ${table} (n int primary key)`);
  await admin.query(`grant insert, select on ${table} to ${ROLE}`);
  try {
    await client.query('begin');
    await client.query(scope(randomUUID()));
    await expect(client.query(`insert into ${table} values ($1 / 0)`, [1])).rejects.toThrow(
      /division by zero/,
    );
    await client.query('rollback');
    // A failed batch leaves the connection usable, with nothing committed from that transaction.
    await client.query('begin');
    await client.query(scope(randomUUID()));
    await client.query(`insert into ${table} values ($1)`, [7]);
    await client.query('rollback');
    await client.query('begin');
    await client.query(scope(randomUUID()));
    await client.query(`insert into ${table} values ($1)`, [8]);
    await client.query('commit');
    const rows = await admin.query(`select n from ${table} order by n`);
    expect(rows.rows).toEqual([{ n: 8 }]);
  } finally {
    client.release();
    await admin.query(`drop table ${table}`);
  }
});
