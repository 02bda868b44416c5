// Consent remembered per (user, app) until the user disconnects the app or the app is suspended or deleted, and
// the oidc-provider Grant built from it: a second authorization, on any device, asks only for what is new.

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Grant } from 'oidc-provider';
import { isApiScope, isOidcScope, mayGrant, splitScope } from '../access/scope.catalogue.js';
import { runRead } from '../db/rows.js';

/** The API resource indicator: the audience of every access token we issue. */
export const API_RESOURCE = 'urn:carshare:api';

/**
 * Adds scopes to a grant. `ops` and `platform` are granted only by an account holding the role of that name; for
 * anyone else they are recorded as refused, so they are never asked again and never reach a token.
 */
export function grantScopes(grant: Grant, scopes: readonly string[], accountRoles: readonly string[]): void {
  const oidc = scopes.filter(isOidcScope);
  const api = scopes.filter((s) => isApiScope(s) && mayGrant(s, accountRoles));
  if (oidc.length > 0) grant.addOIDCScope(oidc.join(' '));
  if (api.length > 0) grant.addResourceScope(API_RESOURCE, api.join(' '));
  for (const s of scopes)
    if (isApiScope(s) && !mayGrant(s, accountRoles)) grant.rejectResourceScope(API_RESOURCE, s);
}

/** Everything a grant allows, OpenID and API scopes together. */
export const grantedScopes = (grant: Grant): string[] => [
  ...splitScope(grant.getOIDCScope()),
  ...splitScope(grant.getResourceScope(API_RESOURCE)),
];

/** What the user approved for the app, if anything. `em` is in the car share's scope. */
export async function rememberedScopes(
  em: EntityManager,
  carShareId: string,
  accountId: string,
  applicationId: string,
): Promise<string[] | undefined> {
  const rows = await runRead<{ scope: string }>(
    em,
    `select scope from oauth_consent
      where car_share_id = ? and account_id = ? and client_application_id = ?`,
    [carShareId, accountId, applicationId],
  );
  return rows[0] ? splitScope(rows[0].scope) : undefined;
}

/** Adds to what the user has approved for the app (consent only ever widens until disconnected). */
export async function rememberConsent(
  em: EntityManager,
  carShareId: string,
  accountId: string,
  applicationId: string,
  scopes: readonly string[],
  now: Date,
): Promise<void> {
  await em.transactional(async (tem) => {
    const before = (await rememberedScopes(tem as EntityManager, carShareId, accountId, applicationId)) ?? [];
    const scope = [...new Set([...before, ...scopes])].join(' ');
    await tem.getConnection().execute(
      `insert into oauth_consent (car_share_id, account_id, client_application_id, scope, granted_date_utc)
       values (?, ?, ?, ?, ?)
       on conflict (car_share_id, account_id, client_application_id) do update set scope = excluded.scope,
         granted_date_utc = excluded.granted_date_utc`,
      [carShareId, accountId, applicationId, scope, now],
      'run',
      tem.getTransactionContext(),
    );
  });
}
