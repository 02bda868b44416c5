// First start on an empty database: the operator account (OPS_EMAIL/OPS_PASSWORD, or generated and printed once);
// every start: the default car share's authorization server keys and dashboard client, made when missing and kept in
// step with PUBLIC_URL.
import { randomBytes } from 'node:crypto';
import { type Actor, apiScopes } from './access/actor.js';
import { createUserAccount } from './accounts/account.commands.js';
import type { CarShare } from './carshares/car-share.js';
import type { Orm } from './db/orm.js';
import { carShareEm } from './db/scope.js';
import { ensureCarShareOAuth } from './oauth/first-party.js';
import type { Clock } from './shared/clock.js';
import type { Logger } from './shared/log.js';

/** The system acting on its own behalf at start-up. */
const system: Actor = { kind: 'clientapplication', id: null, roles: [], scopes: apiScopes };

export async function bootstrap(
  orm: Orm,
  opts: {
    /** The car share whose first operator this is: the default one at start-up. */
    carShare: CarShare;
    email?: string | undefined;
    password?: string | undefined;
    /** When true, the car share's OAuth keys and dashboard client are made (or its redirect URI kept current). */
    oauth?: boolean;
    clock: Clock;
    log: Logger;
  },
) {
  const em = carShareEm(orm, opts.carShare.id);
  // Under the migration lock's sibling: one instance creates the operator, the others find it.
  await em.transactional(async (tem) => {
    await tem
      .getConnection()
      .execute('select pg_advisory_xact_lock(727274664)', [], 'all', tem.getTransactionContext());
    const [row] = await tem
      .getConnection()
      .execute<{ n: string }[]>(
        `select count(*) as n from user_account where car_share_id = ? and roles @> '["ops"]'`,
        [opts.carShare.id],
        'all',
        tem.getTransactionContext(),
      );
    if (Number(row?.n ?? 0) > 0) return;
    const email = opts.email ?? 'ops@carshare.local';
    const generated = opts.password === undefined;
    const password = opts.password ?? `${randomBytes(18).toString('base64url')}`;
    const ctx = { em: tem as typeof em, actor: system, clock: opts.clock };
    await createUserAccount(ctx, {
      username: email,
      password,
      firstName: 'Carshare',
      lastName: 'Operator',
      roles: ['ops'],
    });
    opts.log.info({ username: email }, 'created the first operator account');
    if (generated)
      process.stdout.write(
        `\nCarshare: the first operator account was created.\n  username: ${email}\n  password: ${password}\n` +
          'Sign in to /dashboard with it. This password is shown only once.\n\n',
      );
  });
  if (opts.oauth) await ensureCarShareOAuth(orm, opts.carShare, opts.clock);
}
