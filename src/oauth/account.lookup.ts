// The account behind a sign-in session or a token: only an Active account of the car share counts (CONTRACT §7: a
// suspended account's tokens stop working at once, and it cannot sign in or refresh; §21: another car share's
// account is no account here).
import type { EntityManager } from '@mikro-orm/postgresql';
import { runRead } from '../db/rows.js';

export interface ActiveAccount {
  id: string;
  username: string;
  roles: string[];
  display_name: string | null;
}

/** `em` is in the car share's scope. */
export async function findAccount(
  em: EntityManager,
  carShareId: string,
  accountId: string,
): Promise<ActiveAccount | undefined> {
  const rows = await runRead<ActiveAccount>(
    em,
    `select a.id, a.username, a.roles, p.display_name from user_account a
       left join profile p on p.car_share_id = a.car_share_id and p.user_id = a.id
      where a.car_share_id = ? and a.id = ? and a.status = 'Active'`,
    [carShareId, accountId],
  );
  return rows[0];
}
