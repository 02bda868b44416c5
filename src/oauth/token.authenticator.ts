// The resource server, in-process: a bearer token becomes the Actor of CONTRACT §4. The token is found through the
// authorization server of the car share the request addresses (opaque, looked up by its hash in that car share's
// rows only: another car share's token is invalid_token here, §21), then checked as the userinfo endpoint would:
// expiry to the second (find() tolerates 15 s), audience, no sender binding, client application still active, grant
// still present, account still active. Good answers are cached briefly, per car share and token; see
// access/token.cache.ts for how they are forgotten.
import {
  type Actor,
  roles as allRoles,
  anonymous,
  clientActor,
  type Role,
  type Scope,
} from '../access/actor.js';
import { type Authenticator, bearerToken } from '../access/authenticate.js';
import { isScope, splitScope } from '../access/scope.catalogue.js';
import { type CachedToken, TokenCache } from '../access/token.cache.js';
import type { CarShare } from '../carshares/car-share.js';
import { INVALID_TOKEN } from '../shared/challenge.js';
import { DomainError } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import { findAccount } from './account.lookup.js';
import { tokenHash } from './adapter.js';
import { APPLICATION_ID } from './clients.js';
import { API_RESOURCE } from './consent.store.js';
import type { OAuthSite } from './site.js';

export interface TokenAuthenticator extends Authenticator {
  close(): Promise<void>;
}

const invalid = () =>
  new DomainError('Unauthorized', 'The access token is invalid, expired or revoked', {
    meta: { Reason: INVALID_TOKEN },
  });

const tokenScopes = (scope: string | undefined): Scope[] => splitScope(scope).filter(isScope);

async function check(site: OAuthSite, value: string): Promise<CachedToken | undefined> {
  const { provider } = site;
  const token = (await provider.AccessToken.find(value)) ?? (await provider.ClientCredentials.find(value));
  if (!token || token.isExpired || !token.exp) return undefined;
  const aud = Array.isArray(token.aud) ? token.aud : [token.aud];
  if (aud.length !== 1 || aud[0] !== API_RESOURCE) return undefined;
  if (token.jkt || token['x5t#S256'] || !token.clientId) return undefined;
  // A suspended or deleted application is no client at all.
  const client = await provider.Client.find(token.clientId);
  if (!client) return undefined;
  const scopes = tokenScopes(token.scope);
  if (token.kind === 'ClientCredentials')
    return {
      actor: clientActor(String(client[APPLICATION_ID]), scopes),
      exp: token.exp,
      clientId: token.clientId,
    };
  const grant = await provider.Grant.find(token.grantId);
  if (!grant || grant.clientId !== token.clientId || grant.accountId !== token.accountId) return undefined;
  const account = await findAccount(site.em, site.carShareId, token.accountId);
  if (!account) return undefined;
  const actor: Actor = {
    kind: 'user',
    id: account.id,
    roles: account.roles.filter((r): r is Role => (allRoles as readonly string[]).includes(r)),
    scopes,
  };
  return { actor, exp: token.exp, clientId: token.clientId, grantId: token.grantId, accountId: account.id };
}

export async function tokenAuthenticator(deps: {
  /** The authorization server of a car share (built when first needed). */
  siteFor(carShare: CarShare): Promise<OAuthSite>;
  databaseUrl: string;
  log: Logger;
  /** A cache the caller keeps hearing invalidations (src/service.ts); otherwise one listening on its own connection. */
  tokens?: TokenCache | undefined;
}): Promise<TokenAuthenticator> {
  const cache = deps.tokens ?? new TokenCache();
  const stopListening = deps.tokens ? async () => undefined : await cache.listen(deps.databaseUrl, deps.log);
  /**
   * Checks in flight, per car share and token: when a cached answer expires, the requests that find it gone together
   * (100 connections polling with one token, bench S3) share one check instead of each reading the token, its
   * client and grant. A request joins a check only when nothing was invalidated between the check's start and
   * its own arrival (the same generation once it has heard every invalidation committed before it): a check that
   * began before a revocation never answers a request that came after it.
   */
  const checking = new Map<string, { generation: number; found: Promise<CachedToken | undefined> }>();
  return {
    async actorFor(authorization, carShare, heard) {
      const value = bearerToken(authorization);
      if (value === undefined) return anonymous;
      const key = tokenHash(value);
      const cached = await cache.lookup(carShare.id, key, Date.now, heard);
      if (cached) return cached.actor;
      const inFlight = `${carShare.id}\n${key}`;
      const joined = checking.get(inFlight);
      let found: CachedToken | undefined;
      if (joined && (await cache.caughtUp(heard)) && joined.generation === cache.generation)
        found = await joined.found;
      else {
        const generation = cache.generation;
        const mine = (async () => check(await deps.siteFor(carShare), value))();
        checking.set(inFlight, { generation, found: mine });
        try {
          found = await mine;
        } finally {
          if (checking.get(inFlight)?.found === mine) checking.delete(inFlight);
        }
        if (found) cache.set(carShare.id, key, found, generation, Date.now());
      }
      if (!found) throw invalid();
      return found.actor;
    },
    close: stopListening,
  };
}
