// A request checks its bearer token once, at the edge, though the rate limiter, the cache key and the GraphQL
// context all need the caller; whichever transport it comes by.
import { expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { useRest } from './support.js';

const env = useRest();

it('asks the authenticator once per request, on a cache miss and on a hit', async () => {
  const u = await createUser(env.h);
  const token = env.tokenFor(u.actor);
  for (const pass of ['miss', 'hit']) {
    const before = env.tokenChecks();
    const r = await env.call('GET', `/api/useraccounts/${u.id}`, { token });
    expect(r.status, pass).toBe(200);
    expect(env.tokenChecks() - before, pass).toBe(1);
  }
});

it('asks once for a REST write, a /graphql request, a sign-up and a refused token', async () => {
  const u = await createUser(env.h);
  const token = env.tokenFor(u.actor);
  const once = async (what: string, call: () => Promise<{ status: number }>, status: number) => {
    const before = env.tokenChecks();
    expect((await call()).status, what).toBe(status);
    expect(env.tokenChecks() - before, what).toBe(1);
  };
  await once(
    'PATCH',
    () =>
      env.call('PATCH', `/api/useraccounts/${u.id}`, { token, body: { Username: 'renamed@example.com' } }),
    202,
  );
  await once(
    '/graphql',
    () =>
      env.call('POST', '/graphql', {
        token,
        body: { query: 'query($id: UUID!) { userAccount(id: $id) { id } }', variables: { id: u.id } },
      }),
    200,
  );
  await once(
    'sign-up',
    () =>
      env.call('POST', '/api/useraccounts', {
        body: {
          Username: 'once@example.com',
          Password: 'a long enough passphrase',
          FirstName: 'O',
          LastName: 'N',
        },
      }),
    201,
  );
  await once('bad token', () => env.call('GET', `/api/useraccounts/${u.id}`, { token: 'nope' }), 401);
});
