// CONTRACT §24, shown by the project's own tests: a statement written with no car share condition, run through the
// service's data access (src/db/scope.ts, src/db/rows.ts, MikroORM) in car share A's scope, sees only A's rows;
// the same statement outside any scope, as the app role, sees none.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { UserAccount } from '../../src/accounts/user-account.entity.js';
import { type Orm, openOrm } from '../../src/db/orm.js';
import { readRows, runPrepared, runRead, runSql } from '../../src/db/rows.js';
import { carShareEm, deploymentEm, inCarShare } from '../../src/db/scope.js';
import { entities } from '../../src/modules.js';

let orm: Orm;
const A = randomUUID();
const B = randomUUID();
const users: Record<string, string> = {};

beforeAll(async () => {
  orm = await openOrm(inject('databaseUrl'), entities as never, { pool: 3 });
  const owner = deploymentEm(orm);
  for (const [id, host] of [
    [A, `a-${A.slice(0, 8)}.example`],
    [B, `b-${B.slice(0, 8)}.example`],
  ] as const)
    await owner
      .getConnection()
      .execute('insert into car_share (id, base_url, host, name) values (?, ?, ?, ?)', [
        id,
        `https://${host}`,
        host,
        `Car share ${host}`,
      ]);
  // The same username in both: unique within a car share only (§20).
  for (const id of [A, B]) {
    users[id] = randomUUID();
    await runSql(
      carShareEm(orm, id),
      `insert into user_account (id, username, password_hash, roles, status, created_date_utc, last_modified_date_utc)
       values (?, 'same@example.com', 'x', '["user"]', 'Active', now(), now())`,
      [users[id]],
    );
  }
});

afterAll(async () => {
  const owner = deploymentEm(orm).getConnection();
  await owner.execute('delete from user_account where car_share_id in (?, ?)', [A, B]);
  await owner.execute('delete from car_share where id in (?, ?)', [A, B]);
  await orm.close(true);
});

const ALL = 'select id, username from user_account where username = ?';

it('reads only its own car share’s rows, by every way the service reads', async () => {
  const em = carShareEm(orm, A);
  const only = [{ id: users[A], username: 'same@example.com' }];
  expect(await runRead(em, ALL, ['same@example.com'])).toEqual(only);
  expect(await runPrepared(em, ALL, ['same@example.com'])).toEqual(only);
  expect(await runSql(em, ALL, ['same@example.com'])).toEqual(only);
  expect(
    (
      await readRows(em, UserAccount, 'select * from user_account where username = ?', ['same@example.com'])
    ).map((u) => u.id),
  ).toEqual([users[A]]);
  expect((await em.find(UserAccount, { username: 'same@example.com' })).map((u) => u.id)).toEqual([users[A]]);
  // Inside one transaction of the scope too; and B's scope sees B's.
  expect(await inCarShare(orm, A, (tem) => runSql(tem, ALL, ['same@example.com']))).toEqual(only);
  expect(
    (await runRead<{ id: string }>(carShareEm(orm, B), ALL, ['same@example.com'])).map((r) => r.id),
  ).toEqual([users[B]]);
  // An Id of the other car share is an Id that does not exist.
  expect(await em.findOne(UserAccount, { id: users[B]! })).toBeNull();
});

it('sees nothing outside a scope as the app role, and writes nothing into another car share', async () => {
  const conn = deploymentEm(orm).getConnection();
  const rows = await deploymentEm(orm).transactional(async (tem) => {
    const trx = tem.getTransactionContext();
    await tem.getConnection().execute('set local role carshare_app', [], 'run', trx);
    return tem.getConnection().execute(ALL, ['same@example.com'], 'all', trx);
  });
  expect(rows).toEqual([]);
  // A scoped write naming another car share's id is refused by the policy's WITH CHECK.
  await expect(
    runSql(carShareEm(orm, A), 'update user_account set car_share_id = ? where id = ?', [B, users[A]]),
  ).rejects.toMatchObject({ code: '42501' });
  // The rows are where they were.
  expect(
    await conn.execute('select car_share_id from user_account where id in (?, ?) order by car_share_id = ?', [
      users[A],
      users[B],
      A,
    ]),
  ).toHaveLength(2);
});
