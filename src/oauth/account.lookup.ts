// The account behind a sign-in session or a token: only an Active account counts (CONTRACT §7: a suspended
// account's tokens stop working at once, and it cannot sign in or refresh).
import type { Orm } from '../db/orm.js';

export interface ActiveAccount {
  id: string;
  username: string;
  roles: string[];
  display_name: string | null;
}

export async function findAccount(orm: Orm, accountId: string): Promise<ActiveAccount | undefined> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<ActiveAccount[]>(
      `select a.id, a.username, a.roles, p.display_name from user_account a
         left join profile p on p.user_id = a.id where a.id = ? and a.status = 'Active'`,
      [accountId],
    );
  return rows[0];
}
