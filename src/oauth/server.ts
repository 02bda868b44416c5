// The authorization server, assembled: oidc-provider with our configuration and hashed client secrets, the
// sign-in and consent routes, the resource server's token check, and housekeeping of expired rows.
import type Koa from 'koa';
import mount from 'koa-mount';
import Provider, { type errors, type KoaContextWithOIDC } from 'oidc-provider';
import { secretMatches } from '../clientapps/client-secret.js';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import { clientWentAway } from '../shared/client-gone.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { purgeExpired } from './adapter.js';
import { oauthConfiguration } from './configuration.js';
import { discoveryScopes } from './edges.js';
import { oauthGuard } from './guard.js';
import { interactionRoutes } from './interaction.routes.js';
import { derivedSecret, loadOAuthKeys } from './keys.js';
import { type TokenAuthenticator, tokenAuthenticator } from './token.authenticator.js';

export const OAUTH_PATH = '/api/oauth';
const PURGE_MS = 10 * 60_000;

export interface AuthServer {
  /** A Koa application: mount it at OAUTH_PATH. */
  provider: Provider;
  /** The parent Koa app's `keys` must be these (cookies are written through its context). */
  cookieKeys: string[];
  /** Sign-in and consent: register before the provider's mount. */
  interactions: ReturnType<typeof interactionRoutes>;
  authenticator: TokenAuthenticator;
  close(): Promise<void>;
}

export async function createAuthServer(deps: {
  config: Pick<Config, 'PUBLIC_URL' | 'ACCESS_TOKEN_TTL_SECONDS' | 'REFRESH_TOKEN_TTL_SECONDS'>;
  orm: Orm;
  databaseUrl: string;
  clock: Clock;
  log: Logger;
  timers?: boolean;
}): Promise<AuthServer> {
  const { orm, log } = deps;
  const keys = await loadOAuthKeys(orm);
  const provider = new Provider(
    `${deps.config.PUBLIC_URL}${OAUTH_PATH}`,
    oauthConfiguration({
      orm,
      keys,
      log,
      accessTokenTtl: deps.config.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtl: deps.config.REFRESH_TOKEN_TTL_SECONDS,
    }),
  );
  // Clients hold only a hash of their secret (CONTRACT §5): hash what is presented and compare.
  provider.Client.prototype.compareClientSecret = function compareClientSecret(presented: string) {
    return secretMatches(presented, String(this.clientSecret));
  };

  provider.on('grant.success', (ctx) => {
    const clientId = ctx.oidc.client?.clientId;
    if (!clientId) return;
    void orm.em
      .fork()
      .getConnection()
      .execute(
        'update client_application set last_used_date_utc = ? where client_id = ?',
        [deps.clock.now(), clientId],
        'run',
      )
      .catch((err) => log.warn({ err }, 'could not record a client application’s last use'));
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

  const authenticator = await tokenAuthenticator({ provider, orm, databaseUrl: deps.databaseUrl, log });
  const interactions = interactionRoutes({
    provider,
    orm,
    clock: deps.clock,
    log,
    csrfKey: Buffer.from(derivedSecret(keys, 'interaction-csrf'), 'base64url'),
  });

  const timers: NodeJS.Timeout[] = [];
  if (deps.timers !== false) {
    const purge = setInterval(() => {
      purgeExpired(orm).catch((err) => log.warn({ err }, 'could not purge expired authorization rows'));
    }, PURGE_MS);
    purge.unref();
    timers.push(purge);
  }

  return {
    provider,
    cookieKeys: keys.cookieKeys,
    interactions,
    authenticator,
    async close() {
      for (const t of timers) clearInterval(t);
      await authenticator.close();
    },
  };
}

/**
 * Mounts the authorization server at OAUTH_PATH: its guard and discovery answers, its sign-in and consent pages,
 * then oidc-provider, which writes its cookies through the app's context and so needs the same keys.
 */
export function mountAuthServer(
  koa: Koa,
  server: Pick<AuthServer, 'provider' | 'cookieKeys' | 'interactions'>,
): void {
  koa.keys = server.cookieKeys;
  koa.use(oauthGuard(OAUTH_PATH));
  koa.use(discoveryScopes(OAUTH_PATH));
  koa.use(server.interactions.routes());
  koa.use(mount(OAUTH_PATH, server.provider));
}
