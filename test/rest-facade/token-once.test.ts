// A REST request checks its bearer token once, though the rate limiter, the cache key and the GraphQL context
// all need the caller.
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
