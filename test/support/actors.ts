// Actors built directly, as the authorization server will build them from tokens.
import { randomUUID } from 'node:crypto';
import { type Actor, anonymous, apiScopes, type Scope } from '../../src/access/actor.js';

export { anonymous };

export const asUser = (id: string, scopes: readonly Scope[] = apiScopes): Actor => ({
  kind: 'user',
  id,
  roles: ['user'],
  scopes,
});

/** An operator signed in with the `ops` scope (and every other). */
export const asOps = (id: string = randomUUID(), scopes: readonly Scope[] = apiScopes): Actor => ({
  kind: 'user',
  id,
  roles: ['user', 'ops'],
  scopes,
});

export const asClient = (scopes: readonly Scope[], id: string = randomUUID()): Actor => ({
  kind: 'clientapplication',
  id,
  roles: [],
  scopes,
});

/** Every API scope but those listed. */
export const scopesWithout = (...without: Scope[]): Scope[] => apiScopes.filter((s) => !without.includes(s));
