// The authorization servers, assembled: one oidc-provider per car share (CONTRACT §21; oidc-provider binds one
// issuer to one Provider), built at the car share's first use and kept for the CAR_SHARE_CACHE_SIZE most recently
// used ones (§26); the sign-in and consent routes; the resource server's token check; housekeeping of expired rows.
import type Router from '@koa/router';
import type Koa from 'koa';
import type { TokenCache } from '../access/token.cache.js';
import type { CarShare } from '../carshares/car-share.js';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { purgeExpired } from './adapter.js';
import { discoveryScopes } from './edges.js';
import { oauthGuard } from './guard.js';
import { interactionRoutes } from './interaction.routes.js';
import { buildOAuthSite, OAUTH_PATH, type OAuthSite } from './site.js';
import { type TokenAuthenticator, tokenAuthenticator } from './token.authenticator.js';

export { OAUTH_PATH, type OAuthSite };

const PURGE_MS = 10 * 60_000;

export interface AuthServer {
  /** The authorization server of a car share: built at its first use, then kept while it is recently used. */
  siteFor(carShare: CarShare): Promise<OAuthSite>;
  /** Forgets what is kept for a car share (it changed or went away): its next use builds it again. */
  forget(carShareId: string): void;
  /** Sign-in and consent of the request's car share: register after `selectSite`, before the provider's mount. */
  interactions: Router;
  authenticator: TokenAuthenticator;
  close(): Promise<void>;
}

export async function createAuthServer(deps: {
  config: Pick<Config, 'ACCESS_TOKEN_TTL_SECONDS' | 'REFRESH_TOKEN_TTL_SECONDS'> &
    Partial<Pick<Config, 'CAR_SHARE_CACHE_SIZE'>>;
  orm: Orm;
  databaseUrl: string;
  clock: Clock;
  log: Logger;
  timers?: boolean;
  /** The token cache, heard through the instance's listening connection (src/service.ts). */
  tokens?: TokenCache | undefined;
}): Promise<AuthServer> {
  const { orm, log } = deps;
  const size = deps.config.CAR_SHARE_CACHE_SIZE ?? 500;
  const siteDeps = {
    orm,
    clock: deps.clock,
    log,
    accessTokenTtl: deps.config.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtl: deps.config.REFRESH_TOKEN_TTL_SECONDS,
  };
  // Least recently used first (a Map keeps insertion order; a use moves its entry to the end).
  const sites = new Map<string, { baseUrl: string; site: Promise<OAuthSite> }>();
  const siteFor = (carShare: CarShare): Promise<OAuthSite> => {
    const held = sites.get(carShare.id);
    sites.delete(carShare.id);
    if (held && held.baseUrl === carShare.baseUrl) {
      sites.set(carShare.id, held);
      return held.site;
    }
    const entry = { baseUrl: carShare.baseUrl, site: buildOAuthSite(siteDeps, carShare) };
    sites.set(carShare.id, entry);
    // A build that failed (the database was away) is tried again at the next use.
    entry.site.catch(() => {
      if (sites.get(carShare.id) === entry) sites.delete(carShare.id);
    });
    for (const id of sites.keys()) {
      if (sites.size <= size) break;
      sites.delete(id);
    }
    return entry.site;
  };

  const authenticator = await tokenAuthenticator({
    siteFor,
    databaseUrl: deps.databaseUrl,
    log,
    tokens: deps.tokens,
  });
  const interactions = interactionRoutes({
    siteOf: (ctx) => ctx.state.oauth as OAuthSite,
    clock: deps.clock,
    log,
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
    siteFor,
    forget: (id) => void sites.delete(id),
    interactions,
    authenticator,
    async close() {
      for (const t of timers) clearInterval(t);
      sites.clear();
      await authenticator.close();
    },
  };
}

const underOAuth = (ctx: Koa.Context) => ctx.path === OAUTH_PATH || ctx.path.startsWith(`${OAUTH_PATH}/`);

/**
 * Picks the authorization server of the car share the request addresses (`ctx.state.carShare`, set by the edge).
 * oidc-provider reads and writes some of its cookies through this context: they are signed with that car share's
 * keys, so another car share's cookie is as if absent. Every URL it writes (discovery, redirects) begins with the
 * car share's BaseUrl, never with the host as sent (CONTRACT §19).
 */
function selectSite(server: Pick<AuthServer, 'siteFor'>): Koa.Middleware {
  return async (ctx, next) => {
    const carShare = ctx.state.carShare as CarShare | undefined;
    if (!underOAuth(ctx) || !carShare) return next();
    const site = await server.siteFor(carShare);
    ctx.state.oauth = site;
    ctx.cookies = site.provider.createContext(ctx.req, ctx.res).cookies;
    Object.defineProperty(ctx, 'href', {
      configurable: true,
      get: () => `${site.carShare.baseUrl}${ctx.originalUrl}`,
    });
    return next();
  };
}

/**
 * Mounts the authorization servers at OAUTH_PATH: the guard, the request's car share's server, discovery answers,
 * the sign-in and consent pages, then that car share's oidc-provider.
 */
export function mountAuthServer(
  koa: { use(middleware: Koa.Middleware): unknown },
  server: Pick<AuthServer, 'siteFor' | 'interactions'>,
): void {
  koa.use(oauthGuard(OAUTH_PATH));
  koa.use(selectSite(server));
  koa.use(discoveryScopes(OAUTH_PATH));
  koa.use(server.interactions.routes() as Koa.Middleware);
  koa.use((ctx, next) => {
    const site = ctx.state.oauth as OAuthSite | undefined;
    return site && underOAuth(ctx) ? site.mounted(ctx, next) : next();
  });
}
