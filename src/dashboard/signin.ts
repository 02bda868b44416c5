// Signing people in and out through the car share's own authorization server, for the dashboard (operators) and the
// platform console (role `platform`) alike: start (state and PKCE verifier in a short-lived encrypted cookie), the
// callback (code → tokens, the frame's role only), and sign-out (revocation).
import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Clock } from '../shared/clock.js';
import type { Execute } from './api.js';
import type { Frame } from './frame.js';
import { href, html } from './html.js';
import type { Kit } from './kit.js';
import { send } from './layout.js';
import { authorizationUrl, exchangeCode, newVerifier, revokeToken } from './oauth.js';
import { newSessionId } from './session.js';

const ME = '{ me { id username roles } }';

/** Only a path inside the frame may be returned to after sign-in (no open redirect). */
const safeNext = (frame: Frame, v: unknown): string =>
  typeof v === 'string' &&
  (v === frame.base || v.startsWith(`${frame.base}/`) || v.startsWith(`${frame.base}?`)) &&
  !v.includes('\\')
    ? v
    : frame.base;

const signInLink = (frame: Frame, next = frame.base) =>
  html`<p><a class="button" href="${href(`${frame.base}/signin`, { next })}">Sign in</a></p>`;

/** What the authorization server's error codes mean to a person. */
const oauthErrors = (name: string): Record<string, string> => ({
  login_required: `You need to sign in to use the ${name}.`,
  invalid_scope: `The ${name} asked for a permission the authorization server does not allow it.`,
  unauthorized_client: `The ${name}’s client application is not allowed to sign people in (is it suspended?).`,
  invalid_client: `The ${name}’s client application was not recognised (was it suspended or changed?).`,
  invalid_grant: 'The sign-in code had expired or was already used.',
  server_error: 'The authorization server had a problem.',
  temporarily_unavailable: 'The authorization server is busy.',
});

export function serveSignIn(router: Router, kit: Kit, deps: { execute: Execute; clock: Clock }): void {
  const notOperator = (ctx: Koa.Context, next: string, username?: string) => {
    const { frame } = kit.site(ctx);
    send(
      ctx,
      {
        title: frame.denied.title,
        body: html`${frame.denied.text(username ? html` as <strong>${username}</strong>` : html``)}
<p><a href="${href(`${frame.base}/signin`, { next })}">Sign in with another account</a></p>`,
      },
      403,
    );
  };
  const fail = (ctx: Koa.Context, status: number, title: string, text: string, next?: string) => {
    const { frame } = kit.site(ctx);
    send(ctx, { title, body: html`<p>${text}</p>${signInLink(frame, next)}` }, status);
  };

  router.get('/signin', (ctx) => {
    const { sessions, baseUrl, client, frame } = kit.site(ctx);
    const state = randomBytes(16).toString('base64url');
    const verifier = newVerifier();
    sessions.writeSignIn(ctx, {
      state,
      verifier,
      next: safeNext(frame, ctx.query.next),
      startedAt: deps.clock.now().getTime(),
    });
    ctx.status = 303;
    ctx.redirect(authorizationUrl(baseUrl, client, state, verifier, frame.ask ?? frame.scope));
  });

  router.get('/oauth/callback', async (ctx) => {
    const site = kit.site(ctx);
    const { sessions, frame } = site;
    const errors = oauthErrors(frame.name);
    const pending = sessions.readSignIn(ctx);
    sessions.clearSignIn(ctx);
    const q = ctx.query as Record<string, string | undefined>;
    if (!pending || typeof q.state !== 'string' || q.state !== pending.state)
      return fail(
        ctx,
        400,
        'This sign-in has expired',
        'It took too long, or it began in another browser or tab. Start again.',
      );
    // One scope is asked for, with no consent step: access_denied means the account cannot grant it.
    if (q.error === 'access_denied') return notOperator(ctx, pending.next);
    if (q.error) {
      const known = errors[q.error] ?? `The authorization server refused the sign-in (${q.error}).`;
      return fail(ctx, 400, 'Sign-in did not complete', known, pending.next);
    }
    const r = await exchangeCode(ctx, site, String(q.code ?? ''), pending.verifier);
    if (!r.ok)
      return fail(
        ctx,
        400,
        'Sign-in did not complete',
        errors[r.error] ?? `The token request failed (${r.error}).`,
        pending.next,
      );
    const t = r.tokens;
    const me = await deps
      .execute(ME, {}, `Bearer ${t.accessToken}`, String(ctx.state.requestId), site.carShare)
      .catch(() => undefined);
    const account = me?.data?.me as { id: string; username: string; roles: string[] } | undefined;
    if (!t.scope.includes(frame.scope) || !account?.roles.includes(frame.role)) {
      // Not one of the frame's people: the tokens are of no use here, so they are revoked at once.
      await revokeToken(ctx, site, t.refreshToken ?? t.accessToken);
      await revokeToken(ctx, site, t.accessToken);
      return notOperator(ctx, pending.next, account?.username);
    }
    const now = deps.clock.now().getTime();
    sessions.write(ctx, {
      sid: newSessionId(),
      accessToken: t.accessToken,
      refreshToken: t.refreshToken,
      expiresAt: now + t.expiresIn * 1000,
      userId: account.id,
      username: account.username,
      startedAt: now,
    });
    ctx.status = 303;
    ctx.redirect(pending.next);
  });

  router.post('/signout', async (ctx) => {
    const site = kit.site(ctx);
    const { sessions, frame } = site;
    const session = sessions.read(ctx);
    const csrf = (ctx.request.body as Record<string, unknown> | undefined)?.csrf;
    if (session && !sessions.checkCsrf(session, csrf))
      return send(
        ctx,
        {
          title: 'You are still signed in',
          body: html`<p>The sign-out form had expired. Use the Sign out button of a freshly loaded page.</p><p><a href="${frame.base}">Back to the ${frame.name}</a></p>`,
        },
        403,
      );
    if (session) {
      if (session.refreshToken) await revokeToken(ctx, site, session.refreshToken);
      await revokeToken(ctx, site, session.accessToken);
      sessions.clear(ctx);
    }
    send(ctx, {
      title: 'You are signed out',
      body: html`<p>Your ${frame.name} session has ended and its tokens were revoked.</p>${signInLink(frame)}`,
    });
  });
}
