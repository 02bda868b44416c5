// The operators dashboard's own client application, created at bootstrap (CONTRACT §12). Its secret is derived
// from a key in the database, so every instance (and the dashboard) can compute it while only its hash is stored.
import { scopes } from '../access/actor.js';
import { createClientApplication } from '../clientapps/client-application.commands.js';
import { ClientApplication } from '../clientapps/client-application.entity.js';
import { hashSecret } from '../clientapps/client-secret.js';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../shared/clock.js';
import { derivedSecret, loadOAuthKeys } from './keys.js';

export const DASHBOARD_CLIENT_ID = 'carshare-dashboard';
export const DASHBOARD_CALLBACK_PATH = '/dashboard/oauth/callback';

export interface DashboardClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** What the dashboard needs to sign operators in through the authorization server. */
export async function dashboardClient(orm: Orm, publicUrl: string): Promise<DashboardClient> {
  const keys = await loadOAuthKeys(orm);
  return {
    clientId: DASHBOARD_CLIENT_ID,
    clientSecret: derivedSecret(keys, 'dashboard-client-secret'),
    redirectUri: `${publicUrl}${DASHBOARD_CALLBACK_PATH}`,
  };
}

/** Creates the dashboard's client once; on later starts keeps its redirect URI in step with PUBLIC_URL. */
export async function ensureDashboardClient(
  orm: Orm,
  opts: { publicUrl: string; clock: Clock },
): Promise<void> {
  const { clientId, clientSecret, redirectUri } = await dashboardClient(orm, opts.publicUrl);
  const em = orm.em.fork();
  await em.transactional(async (tem) => {
    await tem
      .getConnection()
      .execute('select pg_advisory_xact_lock(727274666)', [], 'all', tem.getTransactionContext());
    const existing = await tem.findOne(ClientApplication, { isFirstParty: true });
    if (existing) {
      existing.redirectUris = [redirectUri];
      existing.secretHash = hashSecret(clientSecret);
      return;
    }
    await createClientApplication(
      {
        em: tem as typeof em,
        actor: { kind: 'clientapplication', id: null, roles: [], scopes: [] },
        clock: opts.clock,
      },
      {
        name: 'Carshare dashboard',
        description: 'The operators dashboard of this car share.',
        grantTypes: ['authorization_code'],
        redirectUris: [redirectUri],
        allowedScopes: [...scopes],
        allowRefresh: true,
      },
      { isFirstParty: true, clientId, secret: clientSecret },
    );
  });
}
