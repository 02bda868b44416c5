// Client applications as oidc-provider clients: an Active row of client_application becomes client metadata;
// a suspended or deleted one is no client at all, so its requests fail with invalid_client at once.

import type { EntityManager } from '@mikro-orm/postgresql';
import type { AdapterPayload } from 'oidc-provider';
import { isOidcScope } from '../access/scope.catalogue.js';
import { runRead } from '../db/rows.js';

/** Our custom client metadata (oidc-provider `extraClientMetadata.properties`). */
export const APPLICATION_ID = 'urn:carshare:application_id';
export const ALLOWED_SCOPES = 'urn:carshare:allowed_scopes';
export const FIRST_PARTY = 'urn:carshare:first_party';
export const extraClientProperties = [APPLICATION_ID, ALLOWED_SCOPES, FIRST_PARTY];

interface ClientRow {
  id: string;
  name: string;
  client_id: string;
  secret_hash: string;
  grant_types: string[];
  redirect_uris: string[];
  allowed_scopes: string[];
  allow_refresh: boolean;
  is_first_party: boolean;
}

export function toClientMetadata(row: ClientRow): AdapterPayload {
  const code = row.grant_types.includes('authorization_code');
  const refresh = code && row.allow_refresh;
  const oidc = [
    ...row.allowed_scopes.filter(isOidcScope),
    ...(refresh && !row.allowed_scopes.includes('offline_access') ? ['offline_access'] : []),
  ];
  return {
    client_id: row.client_id,
    // Only the hash: compareClientSecret is replaced to hash what the client presents.
    client_secret: row.secret_hash,
    client_name: row.name,
    grant_types: [...row.grant_types, ...(refresh ? ['refresh_token'] : [])],
    response_types: code ? ['code'] : [],
    redirect_uris: code ? row.redirect_uris : [],
    token_endpoint_auth_method: 'client_secret_basic',
    // The OpenID scopes it may ask for (API scopes live in ALLOWED_SCOPES; checked in getResourceServerInfo).
    ...(oidc.length > 0 ? { scope: oidc.join(' ') } : {}),
    [APPLICATION_ID]: row.id,
    [ALLOWED_SCOPES]: row.allowed_scopes,
    [FIRST_PARTY]: row.is_first_party,
  } as AdapterPayload;
}

/** The car share's Active client with this id (`em` is in its scope: another car share's is no client here). */
export async function findClientMetadata(
  em: EntityManager,
  carShareId: string,
  clientId: string,
): Promise<AdapterPayload | undefined> {
  const rows = await runRead<ClientRow>(
    em,
    `select id, name, client_id, secret_hash, grant_types, redirect_uris, allowed_scopes, allow_refresh,
            is_first_party
       from client_application where car_share_id = ? and client_id = ? and status = 'Active'`,
    [carShareId, clientId],
  );
  return rows[0] ? toClientMetadata(rows[0]) : undefined;
}
