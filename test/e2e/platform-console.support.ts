// Support for the platform console's tests: a person holding role `platform`.
import { signUp } from '../oauth/support.js';
import type { E2E } from './dashboard.support.js';

/** A person of the default car share holding role `platform`, as `create-user --platform` makes one. */
export async function platformPerson(at: E2E) {
  const person = await signUp(at.s, { firstName: 'Pat', lastName: 'Form' });
  await at.s.sql(`update user_account set roles = '["user","platform"]' where id = ?`, [person.id]);
  return person;
}
