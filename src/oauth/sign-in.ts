// The sign-in page's username and password check, in the car share's scope; a wrong password counts toward the
// lockout. Another car share's username is one that does not exist here (CONTRACT §21: the wrong-password answer,
// and no lockout counted there).

import type { EntityManager } from '@mikro-orm/postgresql';
import { countWrongPassword, lockedUntil } from '../accounts/lockout.js';
import { verifyPassword } from '../accounts/password.js';
import { UserAccount } from '../accounts/user-account.entity.js';
import { legacyUsername, normaliseUsername } from '../accounts/username.js';
import type { Clock } from '../shared/clock.js';

/** Verified against when the username is unknown, so both cases cost the same time. */
const DECOY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$hurZwhXsMaxFppD1owSVXg$C1otHremDJfb93UwLVRCexmOUgu1tEiHlXUWs2ybC40';

export type SignInResult =
  | { ok: true; accountId: string }
  | { ok: false; reason: 'InvalidCredentials' | 'Suspended' }
  | { ok: false; reason: 'Locked'; lockedUntil: Date };

/** `scoped` is an EntityManager in the car share's scope (carShareEm). */
export async function signIn(
  scoped: EntityManager,
  clock: Clock,
  username: string,
  password: string,
): Promise<SignInResult> {
  const em = scoped.fork();
  // The username as it is stored now (NFKC), or as an older account stored it.
  const names = [...new Set([normaliseUsername(username), legacyUsername(username)])];
  const found = await em.find(UserAccount, { username: { $in: names } });
  const account = found.find((a) => a.username === names[0]) ?? found[0];
  const now = clock.now();
  if (!account) {
    await verifyPassword(DECOY_HASH, password);
    return { ok: false, reason: 'InvalidCredentials' };
  }
  const locked = lockedUntil(account, now);
  if (locked) return { ok: false, reason: 'Locked', lockedUntil: locked };
  if (!(await verifyPassword(account.passwordHash, password))) {
    const lockedNow = await countWrongPassword(em, account.id, now);
    if (lockedNow) return { ok: false, reason: 'Locked', lockedUntil: lockedNow };
    return { ok: false, reason: 'InvalidCredentials' };
  }
  if (account.status !== 'Active') return { ok: false, reason: 'Suspended' };
  account.failedSignIns = 0;
  account.lockedUntilUtc = null;
  account.lastSignInDateUtc = now;
  await em.flush();
  return { ok: true, accountId: account.id };
}
