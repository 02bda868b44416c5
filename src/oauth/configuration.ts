// oidc-provider's configuration for one car share (CONTRACT §9, §21): client credentials, authorization code with
// PKCE S256, refresh; opaque audience-bound access tokens; API scopes bounded per app; consent remembered per (user,
// app). Its storage, clients, accounts and consents are the car share's own; its keys too.
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { apiScopes } from '../access/actor.js';
import { isApiScope, oidcScopes, splitScope } from '../access/scope.catalogue.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../shared/log.js';
import { findAccount } from './account.lookup.js';
import { pgAdapter } from './adapter.js';
import {
  ALLOWED_SCOPES,
  APPLICATION_ID,
  extraClientProperties,
  FIRST_PARTY,
  findClientMetadata,
} from './clients.js';
import { API_RESOURCE, grantScopes, rememberedScopes } from './consent.store.js';
import { errorPage, PAGE_CSP } from './interaction.pages.js';
import type { OAuthKeys } from './keys.js';

export interface OAuthConfigDeps {
  orm: Orm;
  /** The car share's Id, and an EntityManager in its scope. */
  carShareId: string;
  em: EntityManager;
  /** Its BaseUrl: the sign-in pages' address begins with it. */
  baseUrl: string;
  keys: OAuthKeys;
  log: Logger;
  accessTokenTtl: number;
  refreshTokenTtl: number;
}

const clientScopes = (ctx: KoaContextWithOIDC): readonly string[] =>
  (ctx.oidc.client?.[ALLOWED_SCOPES] as string[] | undefined) ?? [];

/** What the scope parameter of this request may hold; anything else is invalid_scope (CONTRACT §4). */
function checkRequestedScopes(ctx: KoaContextWithOIDC, allowed: readonly string[]): void {
  const { route } = ctx.oidc;
  const params = ctx.oidc.params ?? {};
  const cc = route === 'token' && params.grant_type === 'client_credentials';
  if (!cc && route !== 'authorization') return;
  let asked = splitScope(params.scope as string | undefined);
  // CONTRACT §14: a client-credentials request without `scope` gets every API scope its app is allowed.
  if (cc && asked.length === 0) {
    asked = apiScopes.filter((s) => allowed.includes(s));
    params.scope = asked.join(' ') || undefined;
  }
  if (asked.length === 0) throw new errors.InvalidScope('the scope parameter is required', '');
  const refused = asked.filter(
    (s) =>
      !allowed.includes(s) && !(s === 'offline_access' && ctx.oidc.client?.grantTypeAllowed('refresh_token')),
  );
  // A client application acts for itself: OpenID scopes describe a person, so they are refused too.
  if (cc) refused.push(...asked.filter((s) => !isApiScope(s) && !refused.includes(s)));
  if (refused.length > 0) throw new errors.InvalidScope('requested scope is not allowed', refused.join(' '));
}

export function oauthConfiguration(deps: OAuthConfigDeps): Configuration {
  const { orm, em, carShareId, log } = deps;
  return {
    adapter: pgAdapter(orm, carShareId, (clientId) => findClientMetadata(em, carShareId, clientId)),
    clients: [],
    jwks: deps.keys.jwks,
    cookies: {
      keys: deps.keys.cookieKeys,
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    scopes: oidcScopes,
    claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      id_token_signed_response_alg: 'RS256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    extraClientMetadata: { properties: extraClientProperties },
    responseTypes: ['code'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // A token's own client only: others learn nothing (and a deleted client's token cannot crash it).
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      userinfo: { enabled: false },
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => API_RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, indicator) => {
          if (indicator !== API_RESOURCE) throw new errors.InvalidTarget();
          const allowed = clientScopes(ctx);
          checkRequestedScopes(ctx, allowed);
          // Evaluated again at every refresh, so an operator narrowing an app's scopes applies at once.
          return {
            scope: apiScopes.filter((s) => allowed.includes(s)).join(' '),
            audience: API_RESOURCE,
            accessTokenFormat: 'opaque',
            accessTokenTTL: deps.accessTokenTtl,
          };
        },
      },
    },
    ttl: {
      AccessToken: () => deps.accessTokenTtl,
      ClientCredentials: () => deps.accessTokenTtl,
      RefreshToken: () => deps.refreshTokenTtl,
      AuthorizationCode: 60,
      IdToken: 900,
      Interaction: 600,
      Session: 24 * 3600,
      // The cap on one chain of refresh tokens; consent itself is remembered separately, until disconnected.
      Grant: 365 * 86_400,
    },
    // Refresh tokens for apps an operator allowed them, without offline_access or prompt=consent ceremony.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    // Each refresh returns a new refresh token; replaying a used one revokes the grant (reuse detection).
    rotateRefreshToken: true,
    findAccount: async (_ctx, sub) => {
      const a = await findAccount(em, carShareId, sub);
      if (!a) return undefined;
      return {
        accountId: a.id,
        claims: async () => ({
          sub: a.id,
          email: a.username,
          ...(a.display_name ? { name: a.display_name } : {}),
        }),
      };
    },
    loadExistingGrant: async (ctx) => {
      const { client, session, provider } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      const existing = grantId ? await provider.Grant.find(grantId) : undefined;
      const firstParty = client[FIRST_PARTY] === true;
      if (existing && !firstParty) return existing;
      const account = await findAccount(em, carShareId, session.accountId);
      if (!account) return undefined;
      // Our own dashboard needs no consent; any other app gets what the user approved before, and is asked
      // only about the rest.
      const scopes = firstParty
        ? splitScope(ctx.oidc.params?.scope as string | undefined)
        : await rememberedScopes(em, carShareId, account.id, String(client[APPLICATION_ID]));
      if (!scopes) return existing;
      const grant = existing ?? new provider.Grant({ accountId: account.id, clientId: client.clientId });
      grantScopes(grant, scopes, account.roles);
      await grant.save();
      return grant;
    },
    interactions: {
      url: async (_ctx, interaction) => `${deps.baseUrl}/api/oauth/interaction/${interaction.uid}`,
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Security-Policy', PAGE_CSP);
      ctx.set('X-Frame-Options', 'DENY');
      ctx.body = errorPage(
        'Sign-in could not continue',
        `${out.error}: ${out.error_description ?? 'the request was not valid'}. Return to the application and try again.`,
      );
      log.info({ error: out.error, description: out.error_description }, 'authorization error page shown');
    },
  };
}
