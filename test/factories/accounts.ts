// Users made through the real createUserAccount mutation, and made verified borrowers where a test needs one.
import type { Actor } from '../../src/access/actor.js';
import { anonymous, asUser } from '../support/actors.js';
import type { Harness } from '../support/harness.js';

let n = 0;

export interface TestUser {
  id: string;
  profileId: string;
  username: string;
  password: string;
  actor: Actor;
}

export async function createUser(h: Harness, overrides: Record<string, unknown> = {}): Promise<TestUser> {
  n += 1;
  const input = {
    username: `person${n}.${Date.now().toString(36)}@example.com`,
    password: 'a long and unusual passphrase',
    firstName: 'Ada',
    lastName: `Lovelace${n}`,
    ...overrides,
  };
  const data = await h.ok<{ createUserAccount: { id: string; username: string; profile: { id: string } } }>(
    anonymous,
    'mutation($input: CreateUserAccountInput!) { createUserAccount(input: $input) { id username profile { id } } }',
    { input },
  );
  const u = data.createUserAccount;
  return {
    id: u.id,
    profileId: u.profile.id,
    username: u.username,
    password: String(input.password),
    actor: asUser(u.id),
  };
}

/** Marks every required verification of a subject Verified, as an operator would after reviewing evidence. */
export async function markVerified(
  h: Harness,
  subjectType: 'UserAccount' | 'Car',
  subjectId: string,
): Promise<void> {
  await h.orm.em
    .fork()
    .getConnection()
    .execute(
      `update verification set status = 'Verified', decided_date_utc = now() where subject_type = ? and subject_id = ?`,
      [subjectType, subjectId],
    );
}

/** Events recorded in the outbox, oldest first. */
export async function outbox(
  h: Harness,
): Promise<{ name: string; payload: Record<string, unknown>; audience_user_ids: string[] }[]> {
  return h.orm.em
    .fork()
    .getConnection()
    .execute(`select name, payload, audience_user_ids from outbox_event order by seq`);
}
