// Answers the authorization server gives in its own terms (CONTRACT §14): discovery lists every scope of the
// catalogue, and a rate-limited request is told so as OAuth clients and browsers expect.
import type Koa from 'koa';
import { scopes } from '../access/actor.js';
import { errorPage, PAGE_CSP } from './interaction.pages.js';
import { INTERACTION_PATH } from './interaction.routes.js';

const DISCOVERY = ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'];

/** oidc-provider lists only its OpenID scopes; the API scopes are requested with the same parameter. */
export function discoveryScopes(path: string): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if (!DISCOVERY.some((d) => ctx.path === `${path}${d}`)) return;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (body && typeof body === 'object' && !Buffer.isBuffer(body)) body.scopes_supported = [...scopes];
  };
}

/**
 * A 429 under the authorization server: the sign-in pages show the message in a page, every other endpoint
 * answers the OAuth error body `slow_down`. Returns false for paths that are not the authorization server's.
 */
export function oauthTooManyRequests(path: string) {
  return (ctx: Koa.Context, message: string): boolean => {
    if (!(ctx.path === path || ctx.path.startsWith(`${path}/`))) return false;
    ctx.status = 429;
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path.startsWith(`${INTERACTION_PATH}/`)) {
      ctx.type = 'html';
      ctx.set('Content-Security-Policy', PAGE_CSP);
      ctx.set('X-Frame-Options', 'DENY');
      ctx.body = errorPage('Too many attempts', `${message}. Wait a moment, then go back and try again.`);
      return true;
    }
    ctx.type = 'application/json';
    ctx.body = { error: 'slow_down', error_description: message };
    return true;
  };
}
