// The sign-in and consent steps of an authorization (oidc-provider "interactions"), served before the provider's
// own routes, for the car share the request addresses (its provider, its accounts, its consents). Forms are
// CSRF-safe (a per-interaction token, SameSite cookies, same-origin check); pages are never cached or framed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type Koa from 'koa';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { isScope, mayGrant, scopeDescriptions } from '../access/scope.catalogue.js';
import { runRead } from '../db/rows.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { findAccount } from './account.lookup.js';
import { APPLICATION_ID } from './clients.js';
import { API_RESOURCE, grantedScopes, grantScopes, rememberConsent } from './consent.store.js';
import { consentPage, errorPage, loginPage, PAGE_CSP } from './interaction.pages.js';
import { signIn } from './sign-in.js';
import type { OAuthSite } from './site.js';

export const INTERACTION_PATH = '/api/oauth/interaction';

export interface InteractionDeps {
  /** The authorization server of the car share the request addresses (set before these routes run). */
  siteOf(ctx: Koa.Context): OAuthSite;
  clock: Clock;
  log: Logger;
}

type Ctx = Koa.ParameterizedContext;
type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

function page(ctx: Ctx, html: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = html;
}

/** Scopes the consent step asks about: what is missing from the grant, OpenID and API alike. */
function missingScopes(d: Details): string[] {
  const details = d.prompt.details as {
    missingOIDCScope?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  return [...(details.missingOIDCScope ?? []), ...(details.missingResourceScopes?.[API_RESOURCE] ?? [])];
}

export function interactionRoutes(deps: InteractionDeps): Router {
  const { clock, log } = deps;
  const csrfFor = (ctx: Ctx, uid: string) =>
    createHmac('sha256', deps.siteOf(ctx).csrfKey).update(`csrf:${uid}`).digest('base64url');
  const router = new Router({ prefix: INTERACTION_PATH });
  const form = bodyParser({ enableTypes: ['form'], formLimit: '16kb' });

  const finish = async (ctx: Ctx, result: InteractionResults, merge: boolean) => {
    const { provider } = deps.siteOf(ctx);
    const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: merge });
    ctx.status = 303;
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(to);
  };

  /** Every POST: the interaction's CSRF token, and no cross-site origin. */
  const checkPost = (ctx: Ctx, uid: string): boolean => {
    // (Koa 3's ctx.origin is the Origin header itself, so our own origin is built.)
    const origin = ctx.get('Origin');
    const own = `${ctx.protocol}://${ctx.host}`;
    // These pages send no referrer, so a browser posts their forms with `Origin: null`: Sec-Fetch-Site (which
    // pages cannot forge) then says whether the form was our own.
    const ownForm = origin === 'null' && ctx.get('Sec-Fetch-Site') === 'same-origin';
    if (ctx.get('Sec-Fetch-Site') === 'cross-site' || (origin && origin !== own && !ownForm)) return false;
    const sent = Buffer.from(String((ctx.request.body as Record<string, unknown> | undefined)?.csrf ?? ''));
    const expected = Buffer.from(csrfFor(ctx, uid));
    return sent.length === expected.length && timingSafeEqual(sent, expected);
  };

  const consentView = async (ctx: Ctx, d: Details) => {
    const { provider, em, carShareId } = deps.siteOf(ctx);
    const client = await provider.Client.find(String(d.params.client_id));
    const account = d.session ? await findAccount(em, carShareId, d.session.accountId) : undefined;
    if (!client || !account)
      return page(ctx, errorPage('Sign-in could not continue', 'Start again from the application.'), 400);
    const asked = missingScopes(d).filter((s) => isScope(s) && mayGrant(s, account.roles));
    // Only `ops` or `platform` was missing and this person cannot grant it: nothing to ask; record the refusal and go
    // on.
    if (asked.length === 0) return allow(ctx, d, account.id, account.roles);
    const app = await runRead<{ description: string | null }>(
      em,
      'select description from client_application where car_share_id = ? and id = ?',
      [carShareId, client[APPLICATION_ID]],
    );
    page(
      ctx,
      consentPage({
        action: `${INTERACTION_PATH}/${d.uid}/consent`,
        csrf: csrfFor(ctx, d.uid),
        appName: client.clientName ?? client.clientId,
        appDescription: app[0]?.description ?? null,
        username: account.username,
        scopes: asked.map((s) => ({
          name: s,
          description: scopeDescriptions[s as keyof typeof scopeDescriptions],
        })),
        keepsAccess: client.grantTypeAllowed('refresh_token'),
      }),
    );
  };

  const allow = async (ctx: Ctx, d: Details, accountId: string, accountRoles: readonly string[]) => {
    const { provider, em, carShareId } = deps.siteOf(ctx);
    const clientId = String(d.params.client_id);
    const grant =
      (d.grantId ? await provider.Grant.find(d.grantId) : undefined) ??
      new provider.Grant({ accountId, clientId });
    grantScopes(grant, missingScopes(d), accountRoles);
    const claims = (d.prompt.details as { missingOIDCClaims?: string[] }).missingOIDCClaims;
    if (claims?.length) grant.addOIDCClaims(claims);
    const grantId = await grant.save();
    const client = await provider.Client.find(clientId);
    if (client)
      await rememberConsent(
        em,
        carShareId,
        accountId,
        String(client[APPLICATION_ID]),
        grantedScopes(grant),
        clock.now(),
      );
    await finish(ctx, { consent: { grantId } }, true);
  };

  const loginView = async (ctx: Ctx, d: Details, error?: string, username?: string) => {
    const client = await deps.siteOf(ctx).provider.Client.find(String(d.params.client_id));
    page(
      ctx,
      loginPage({
        action: `${INTERACTION_PATH}/${d.uid}/login`,
        csrf: csrfFor(ctx, d.uid),
        appName: client?.clientName ?? 'the application',
        ...(username ? { username } : {}),
        ...(error ? { error } : {}),
      }),
    );
  };

  // An expired or foreign interaction (no cookie, unknown uid) is a friendly page, never a stack trace.
  router.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if ((err as { name?: string }).name !== 'SessionNotFound') throw err;
      page(ctx, errorPage('This sign-in has expired', 'Return to the application and start again.'), 400);
    }
  });

  const details = (ctx: Ctx) => deps.siteOf(ctx).provider.interactionDetails(ctx.req, ctx.res);

  router.get('/:uid', async (ctx) => {
    const d = await details(ctx);
    if (d.uid !== ctx.params.uid)
      return page(ctx, errorPage('Sign-in could not continue', 'Start again.'), 400);
    if (d.prompt.name === 'login') return loginView(ctx, d);
    if (d.prompt.name === 'consent') return consentView(ctx, d);
    page(ctx, errorPage('Sign-in could not continue', 'Return to the application and start again.'), 400);
  });

  router.post('/:uid/login', form, async (ctx) => {
    const d = await details(ctx);
    if (d.uid !== ctx.params.uid || d.prompt.name !== 'login' || !checkPost(ctx, d.uid))
      return page(
        ctx,
        errorPage('Sign-in could not continue', 'Return to the application and start again.'),
        400,
      );
    const body = ctx.request.body as Record<string, string | undefined>;
    const username = String(body.username ?? '').slice(0, 254);
    const result = await signIn(
      deps.siteOf(ctx).em,
      clock,
      username,
      String(body.password ?? '').slice(0, 200),
    );
    if (result.ok) return finish(ctx, { login: { accountId: result.accountId } }, false);
    log.info({ reason: result.reason }, 'sign-in refused');
    const message =
      result.reason === 'Locked'
        ? `Too many failed attempts: this account is locked until ${result.lockedUntil.toISOString().slice(11, 16)} UTC. Try again in a few minutes.`
        : result.reason === 'Suspended'
          ? 'This account is suspended. Contact the car share’s operators.'
          : 'Wrong e-mail address or password.';
    return loginView(ctx, d, message, username);
  });

  router.post('/:uid/consent', form, async (ctx) => {
    const d = await details(ctx);
    if (d.uid !== ctx.params.uid || d.prompt.name !== 'consent' || !d.session || !checkPost(ctx, d.uid))
      return page(
        ctx,
        errorPage('Sign-in could not continue', 'Return to the application and start again.'),
        400,
      );
    const decision = (ctx.request.body as Record<string, unknown>).decision;
    if (decision !== 'allow')
      return finish(ctx, { error: 'access_denied', error_description: 'The user denied the request' }, false);
    const { em, carShareId } = deps.siteOf(ctx);
    const account = await findAccount(em, carShareId, d.session.accountId);
    if (!account) return page(ctx, errorPage('Sign-in could not continue', 'Start again.'), 400);
    return allow(ctx, d, account.id, account.roles);
  });

  return router;
}
