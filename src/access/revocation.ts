// Telling every instance's token cache (token.cache.ts) that a token, grant, account or client application stopped
// being valid: NOTIFY carshare_auth, sent by the service in the transaction of the change (CONTRACT §25), with the
// payloads the cache forgets by (`token:<stored id>`, `grant:<id>`, `account:<id>`, `client:<client id>`).
import type { EntityManager } from '@mikro-orm/postgresql';
import { notifyInTransaction } from '../db/notify.js';
import { carShareOf } from '../db/scope.js';
import { CHANNEL } from './token.cache.js';

/** An account's status or roles changed, or it was deleted. */
export const announceAccountChanged = (em: EntityManager, accountId: string): Promise<void> =>
  notifyInTransaction(em, CHANNEL, `account:${accountId}`);

/** A client application's status or client id changed, or it was deleted (by its client id before the change). */
export const announceClientChanged = (em: EntityManager, clientId: string): Promise<void> =>
  notifyInTransaction(em, CHANNEL, `client:${clientId}`);

/** Models whose deletion is announced: those a cached token check depends on. */
export const ANNOUNCED_MODELS: ReadonlySet<string> = new Set(['AccessToken', 'ClientCredentials', 'Grant']);

/** Which of oidc-provider's rows (oauth_model) to delete. */
export type OAuthRows =
  | { model: string; id: string }
  | { model: string; grantId: string }
  | { accountId: string }
  | { clientId: string };

function where(rows: OAuthRows): { sql: string; params: string[] } {
  if ('id' in rows) return { sql: '"model" = ? and "id" = ?', params: [rows.model, rows.id] };
  if ('grantId' in rows) return { sql: '"model" = ? and "grant_id" = ?', params: [rows.model, rows.grantId] };
  if ('accountId' in rows) return { sql: '"account_id" = ?', params: [rows.accountId] };
  return { sql: '"client_id" = ?', params: [rows.clientId] };
}

/**
 * Deletes oidc-provider's rows in `em`'s transaction and announces each deleted one that was still live (no expiry,
 * or one after the transaction's start), as the trigger before it did: an access or client-credentials token as
 * `token:<stored id>`, a grant as `grant:<id>`. Outside a transaction, in one of its own.
 */
export async function deleteOAuthRows(em: EntityManager, rows: OAuthRows): Promise<void> {
  if (!em.isInTransaction()) return em.transactional((tx) => deleteOAuthRows(tx as EntityManager, rows));
  const w = where(rows);
  // In a car share's scope, the statement names it (CONTRACT §25), as well as row-level security holding it there.
  const carShareId = carShareOf(em);
  const scope = carShareId
    ? { sql: '"car_share_id" = ? and ', params: [carShareId] }
    : { sql: '', params: [] };
  const live = await em.getConnection().execute<{ model: string; id: string }[]>(
    `with d as (delete from "oauth_model" where ${scope.sql}${w.sql} returning "model", "id", "expires_at")
     select "model", "id" from d
      where "model" in (${[...ANNOUNCED_MODELS].map((m) => `'${m}'`).join(', ')})
        and ("expires_at" is null or "expires_at" > now())`,
    [...scope.params, ...w.params],
    'all',
    em.getTransactionContext(),
  );
  await notifyInTransaction(
    em,
    CHANNEL,
    live.map((r) => `${r.model === 'Grant' ? 'grant' : 'token'}:${r.id}`),
  );
}
