// Each car share's operators dashboard client application (CONTRACT §12, §21): one per car share, its redirect under
// the car share's BaseUrl/dashboard/. The default car share's also signs people in to the platform console (§22):
// a second redirect under /platform/ and the scope `platform`, which no other car share's first-party client has. Its secret is derived from the car share's own keys, so every instance (and
// the dashboard) can compute it while only its hash is stored. Made at a car share's first OAuth or dashboard use
// (and at start for the default one), kept in step with its BaseUrl.
import type { EntityManager } from '@mikro-orm/postgresql';
import { scopes } from '../access/actor.js';
import type { CarShare } from '../carshares/car-share.js';
import { createClientApplication } from '../clientapps/client-application.commands.js';
import { hashSecret } from '../clientapps/client-secret.js';
import type { Orm } from '../db/orm.js';
import { inCarShare } from '../db/scope.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { derivedSecret, ensureOAuthKeys, type OAuthKeys } from './keys.js';

/** The default car share's dashboard client id (as before car shares: an upgrade keeps its sessions working). */
export const DASHBOARD_CLIENT_ID = 'carshare-dashboard';
export const DASHBOARD_CALLBACK_PATH = '/dashboard/oauth/callback';
/** The platform console's callback, at the default car share's address only. */
export const CONSOLE_CALLBACK_PATH = '/platform/oauth/callback';
const CLIENT_LOCK = 727_274_666;

export interface DashboardClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

type Site = Pick<CarShare, 'id' | 'baseUrl' | 'isDefault'>;

/** ClientIds are unique across the deployment (§20): every other car share's names it. */
export const dashboardClientId = (carShare: Site): string =>
  carShare.isDefault ? DASHBOARD_CLIENT_ID : `${DASHBOARD_CLIENT_ID}-${carShare.id}`;

/** The redirect URIs the first-party client holds: the dashboard's, and at the default car share the console's. */
const redirectUrisOf = (carShare: Site): string[] => [
  `${carShare.baseUrl}${DASHBOARD_CALLBACK_PATH}`,
  ...(carShare.isDefault ? [`${carShare.baseUrl}${CONSOLE_CALLBACK_PATH}`] : []),
];

/** The dashboard is operators' own: the platform's scope is for the console, at the default car share (§22). */
const allowedScopesOf = (carShare: Site): string[] =>
  carShare.isDefault ? [...scopes] : scopes.filter((s) => s !== 'platform');

/** What the dashboard needs to sign operators in through its car share's authorization server. */
export function dashboardClientOf(
  carShare: Site,
  keys: Pick<OAuthKeys, 'derivationKey'>,
  clientId = dashboardClientId(carShare),
): DashboardClient {
  return {
    clientId,
    clientSecret: derivedSecret(keys, 'dashboard-client-secret'),
    redirectUri: `${carShare.baseUrl}${DASHBOARD_CALLBACK_PATH}`,
  };
}

/**
 * Creates the car share's dashboard client once; afterwards keeps its redirect URI and secret in step with the car
 * share's BaseUrl and keys. `em` is in a transaction of the car share's scope.
 */
export async function ensureDashboardClient(
  em: EntityManager,
  carShare: Site,
  keys: Pick<OAuthKeys, 'derivationKey'>,
  clock: Clock,
): Promise<DashboardClient> {
  const conn = em.getConnection();
  const tx = em.getTransactionContext();
  if (!tx) throw new Error('ensureDashboardClient: not in a transaction');
  await conn.execute('select pg_advisory_xact_lock(?, hashtext(?))', [CLIENT_LOCK, carShare.id], 'all', tx);
  const [existing] = await conn.execute<
    { client_id: string; secret_hash: string; redirect_uris: string[]; allowed_scopes: string[] }[]
  >(
    `select client_id, secret_hash, redirect_uris, allowed_scopes from client_application
      where car_share_id = ? and is_first_party`,
    [carShare.id],
    'all',
    tx,
  );
  const client = dashboardClientOf(carShare, keys, existing?.client_id);
  if (existing) {
    const secretHash = hashSecret(client.clientSecret);
    const uris = redirectUrisOf(carShare);
    const allowed = allowedScopesOf(carShare);
    if (
      existing.secret_hash !== secretHash ||
      JSON.stringify(existing.redirect_uris) !== JSON.stringify(uris) ||
      JSON.stringify(existing.allowed_scopes) !== JSON.stringify(allowed)
    )
      await conn.execute(
        `update client_application set redirect_uris = ?::jsonb, allowed_scopes = ?::jsonb, secret_hash = ?
          where car_share_id = ? and is_first_party`,
        [JSON.stringify(uris), JSON.stringify(allowed), secretHash, carShare.id],
        'run',
        tx,
      );
    return client;
  }
  await createClientApplication(
    { em, actor: { kind: 'clientapplication', id: null, roles: [], scopes: [] }, clock },
    {
      name: 'Carshare dashboard',
      description: 'The operators dashboard of this car share.',
      grantTypes: ['authorization_code'],
      redirectUris: redirectUrisOf(carShare),
      allowedScopes: allowedScopesOf(carShare),
      allowRefresh: true,
    },
    { isFirstParty: true, clientId: client.clientId, secret: client.clientSecret },
  );
  return client;
}

/**
 * Everything a car share's authorization server needs made in its database before it serves: its keys and its
 * dashboard client, in one transaction of its scope. Called with the `em` of a car share being created (so they
 * exist once it does), or lazily at its first use.
 */
export async function prepareCarShareOAuth(
  em: EntityManager,
  carShare: Site,
  clock: Clock,
): Promise<{ keys: OAuthKeys; dashboard: DashboardClient }> {
  const keys = await ensureOAuthKeys(em, carShare.id);
  const dashboard = await ensureDashboardClient(em, carShare, keys, clock);
  return { keys, dashboard };
}

/** The car share's keys and dashboard client, made when missing, in a transaction of its own scope. */
export const ensureCarShareOAuth = (orm: Orm, carShare: Site, clock: Clock) =>
  inCarShare(orm, carShare.id, (em) => prepareCarShareOAuth(em, carShare, clock));

/** What the dashboard of a car share signs in with (its keys and client are made when missing). */
export async function dashboardClient(
  orm: Orm,
  carShare: Site,
  clock: Clock = systemClock,
): Promise<DashboardClient> {
  return (await ensureCarShareOAuth(orm, carShare, clock)).dashboard;
}
