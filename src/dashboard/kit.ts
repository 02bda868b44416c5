// What every page handler gets: the operator's API client, who is signed in (with the form token), the parsed
// form of a POST, and helpers to read it. Handlers are wrapped so only a signed-in operator reaches them.
import type Koa from 'koa';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { type Api, type ApiDeps, apiFor } from './api.js';
import { href, html } from './html.js';
import { type PageSpec, send } from './layout.js';
import { type DashboardSite, siteOf } from './site.js';

export type Form = Record<string, unknown>;

export interface Op {
  api: Api;
  user: NonNullable<PageSpec['user']>;
  form: Form;
  page(spec: Omit<PageSpec, 'user'>, status?: number): void;
}

export type Handler = (ctx: Koa.Context, op: Op) => Promise<void>;

export interface Kit {
  operator(handler: Handler): Koa.Middleware;
  /** The dashboard of the car share the request addresses. */
  site(ctx: Koa.Context): DashboardSite;
  clock: Clock;
  log: Logger;
}

/** A form value as one trimmed string ('' when absent). */
export const text = (form: Form, key: string): string => {
  const v = form[key];
  return (Array.isArray(v) ? String(v[0] ?? '') : typeof v === 'string' ? v : '').trim();
};

/** Every value of a repeated field (checkboxes). */
export const values = (form: Form, key: string): string[] => {
  const v = form[key];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String).filter((s) => s !== '');
};

/** A POST from another site (or a page of ours that lost its token) is refused: CSRF. */
function sameOrigin(ctx: Koa.Context): boolean {
  const origin = ctx.get('Origin');
  return (
    ctx.get('Sec-Fetch-Site') !== 'cross-site' && (!origin || origin === `${ctx.protocol}://${ctx.host}`)
  );
}

export function createKit(deps: ApiDeps & { log: Logger }): Kit {
  const operator =
    (handler: Handler): Koa.Middleware =>
    async (ctx) => {
      const { sessions, frame } = siteOf(ctx);
      const BASE = frame.base;
      const session = sessions.read(ctx);
      if (!session) {
        const next = ctx.method === 'GET' ? ctx.originalUrl : BASE;
        ctx.status = 303;
        return ctx.redirect(href(`${BASE}/signin`, { next }));
      }
      const user = { username: session.username, csrf: sessions.csrf(session) };
      const page = (spec: Omit<PageSpec, 'user'>, status = 200) => send(ctx, { ...spec, user }, status);
      const form = ctx.method === 'POST' ? ((ctx.request.body ?? {}) as Form) : {};
      if (ctx.method === 'POST' && (!sameOrigin(ctx) || !sessions.checkCsrf(session, form.csrf)))
        return page(
          {
            title: 'This form has expired',
            body: html`<p>The form was not sent from this ${frame.name}’s current session, so nothing was changed.
Go back, reload the page and try again.</p>`,
          },
          403,
        );
      try {
        await handler(ctx, { api: apiFor(ctx, session, deps), user, form, page });
      } catch (e) {
        if ((e as Error).name !== 'SessionEnded') throw e;
        sessions.clear(ctx);
        send(
          ctx,
          {
            title: 'Your session has ended',
            body: html`<p>Your sign-in is no longer valid: it expired, was revoked, or your account was suspended.
Nothing was changed.</p><p><a class="button" href="${href(`${BASE}/signin`, { next: ctx.method === 'GET' ? ctx.originalUrl : BASE })}">Sign in again</a></p>`,
          },
          401,
        );
      }
    };
  return {
    operator,
    site: siteOf,
    clock: deps.clock,
    log: deps.log,
  };
}
