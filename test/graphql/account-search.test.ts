// userAccounts(search:): operators find a person by part of their e-mail address or of their name, any case.
import { describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { asOps, asUser } from '../support/actors.js';
import { useHarness } from '../support/harness.js';

const h = useHarness();

const SEARCH = `query($search: String) { userAccounts(search: $search, sort: "username") { total nodes { username } } }`;
const found = async (search: string) =>
  (
    await h.ok<{ userAccounts: { nodes: { username: string }[] } }>(asOps(), SEARCH, { search })
  ).userAccounts.nodes.map((n) => n.username);

describe('userAccounts(search:)', () => {
  it('matches part of the username, the first and last name, or the display name, in any case', async () => {
    await createUser(h, { username: 'grace@navy.example', firstName: 'Grace', lastName: 'Hopper' });
    await createUser(h, { username: 'ada@engine.example', firstName: 'Ada', lastName: 'Lovelace' });
    expect(await found('NAVY')).toEqual(['grace@navy.example']);
    expect(await found('hopp')).toEqual(['grace@navy.example']);
    expect(await found('ada lovelace')).toEqual(['ada@engine.example']);
    expect(await found('Ada L.')).toEqual(['ada@engine.example']);
    expect(await found('.example')).toEqual(['ada@engine.example', 'grace@navy.example']);
    // LIKE's own characters are plain text.
    expect(await found('%')).toEqual([]);
    expect(await found('  ')).toHaveLength(2);
  });

  it('still shows a user only their own account', async () => {
    const me = await createUser(h, { firstName: 'Same', lastName: 'Name' });
    await createUser(h, { firstName: 'Same', lastName: 'Name' });
    const d = await h.ok<{ userAccounts: { total: number } }>(asUser(me.id), SEARCH, { search: 'same' });
    expect(d.userAccounts.total).toBe(1);
  });
});
