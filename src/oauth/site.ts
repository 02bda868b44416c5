// One car share's authorization server (CONTRACT §21): an oidc-provider `Provider` whose issuer is the car share's
// `{BaseUrl}/api/oauth`, with its own keys, its own rows (every statement in its scope) and its own first-party
// dashboard client. Built when the car share is first used; server.ts keeps the recently used ones.
import type { EntityManager } from '@mikro-orm/postgresql';
import type Koa from 'koa';
import mount from 'koa-mount';
import Provider, { type errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { CarShare } from '../carshares/car-share.js';
import { secretMatches } from '../clientapps/client-secret.js';
import type { Orm } from '../db/orm.js';
import { carShareEm, inCarShare } from '../db/scope.js';
import { clientWentAway } from '../shared/client-gone.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { oauthConfiguration } from './configuration.js';
import { type DashboardClient, ensureCarShareOAuth } from './first-party.js';
import { derivedSecret, type OAuthKeys } from './keys.js';

export const OAUTH_PATH = '/api/oauth';

export interface OAuthSite {
  /** The car share as it was when this was built (a change to it builds a new one). */
  carShare: CarShare;
  carShareId: string;
  provider: Provider;
  /** An EntityManager in the car share's scope. */
  em: EntityManager;
  keys: OAuthKeys;
  /** The car share's first-party dashboard client. */
  dashboard: DashboardClient;
  /** The key of the sign-in pages' CSRF tokens. */
  csrfKey: Buffer;
  /** The provider mounted at OAUTH_PATH. */
  mounted: Koa.Middleware;
}

export interface OAuthSiteDeps {
  orm: Orm;
  clock: Clock;
  log: Logger;
  accessTokenTtl: number;
  refreshTokenTtl: number;
}

export async function buildOAuthSite(deps: OAuthSiteDeps, carShare: CarShare): Promise<OAuthSite> {
  const { orm, clock } = deps;
  const log = deps.log.child({ carShareId: carShare.id });
  const { keys, dashboard } = await ensureCarShareOAuth(orm, carShare, clock);
  const em = carShareEm(orm, carShare.id);
  const provider = new Provider(
    carShare.issuer,
    oauthConfiguration({
      orm,
      em,
      carShareId: carShare.id,
      baseUrl: carShare.baseUrl,
      keys,
      log,
      accessTokenTtl: deps.accessTokenTtl,
      refreshTokenTtl: deps.refreshTokenTtl,
    }),
  );
  // Clients hold only a hash of their secret (CONTRACT §5): hash what is presented and compare.
  provider.Client.prototype.compareClientSecret = function compareClientSecret(presented: string) {
    return secretMatches(presented, String(this.clientSecret));
  };

  provider.on('grant.success', (ctx) => {
    const clientId = ctx.oidc.client?.clientId;
    if (!clientId) return;
    void inCarShare(orm, carShare.id, (tem) =>
      tem
        .getConnection()
        .execute(
          'update client_application set last_used_date_utc = ? where car_share_id = ? and client_id = ?',
          [clock.now(), carShare.id, clientId],
          'run',
          tem.getTransactionContext(),
        ),
    ).catch((err) => log.warn({ err }, 'could not record a client application’s last use'));
  });
  // What went wrong is told to the client only as an error code; the detail goes to our logs (never a token).
  const refused = (event: string) => (ctx: KoaContextWithOIDC, err: errors.OIDCProviderError) =>
    log.info(
      { event, error: err.message, detail: err.error_detail, client: ctx.oidc?.client?.clientId },
      'oauth request refused',
    );
  provider.on('grant.error', refused('grant.error'));
  provider.on('introspection.error', refused('introspection.error'));
  provider.on('revocation.error', refused('revocation.error'));
  provider.on('authorization.error', refused('authorization.error'));
  provider.on('server_error', (ctx, err) =>
    // A client that left mid-request is no error of ours (client-gone.ts).
    clientWentAway(err, ctx?.req)
      ? log.debug({ reason: err.message }, 'client went away')
      : log.error({ err }, 'authorization server error'),
  );

  return {
    carShare,
    carShareId: carShare.id,
    provider,
    em,
    keys,
    dashboard,
    csrfKey: Buffer.from(derivedSecret(keys, 'interaction-csrf'), 'base64url'),
    mounted: mount(OAUTH_PATH, provider),
  };
}
