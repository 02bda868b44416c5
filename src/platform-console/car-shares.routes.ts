// The car shares' pages: the list with its search, the form of a new car share and its creation, and one car share.
import type Router from '@koa/router';
import type { Problem } from '../dashboard/errors.js';
import { type Html, html } from '../dashboard/html.js';
import { type Kit, type Op, text } from '../dashboard/kit.js';
import { noResults, offsetOf, oneOf, param } from '../dashboard/query.js';
import { type CarShare, CREATE, ONE, type Page, problemOf, SEARCH } from './api.js';
import { carSharePage } from './car-share.pages.js';
import { createdPage, type ListQuery, listPage, type NewCarShare, newPage } from './car-shares.pages.js';
import { noticeOf } from './notices.js';

/** A host as people type it: no spaces, and a dot, a port or `localhost`. */
const looksLikeHost = (q: string) => /^[^\s/]+$/.test(q) && /[.:]|^localhost$/i.test(q);

/** A car share's page, with what the last action left to say (a problem, a password shown once, a notice). */
export async function showCarShare(
  op: Op,
  id: string,
  more: { problem?: Problem; extra?: Html; notice?: string | undefined } = {},
): Promise<void> {
  const r = await op.api.run<{ carShare: CarShare }>(ONE, { id });
  if (!r.ok)
    return op.page({
      title: 'Car share',
      section: 'carshares',
      body: html`<p><a href="/platform">Back to the car shares</a></p>`,
      problem: more.problem ?? problemOf(r.error),
    });
  op.page({
    title: r.data.carShare.name,
    section: 'carshares',
    notice: more.notice,
    problem: more.problem,
    body: carSharePage(r.data.carShare, op.user.csrf, more.problem, more.extra),
  });
}

export function serveCarSharePages(router: Router, kit: Kit): void {
  router.get(
    '/',
    kit.operator(async (ctx, op) => {
      const f: ListQuery = {
        q: param(ctx, 'q'),
        status: oneOf(param(ctx, 'status'), ['Active', 'Suspended'] as const),
      };
      const byHost = looksLikeHost(f.q);
      const r = await op.api.run<{ byName: Page<CarShare>; byHost?: Page<CarShare> }>(SEARCH, {
        status: f.status || null,
        name: f.q || null,
        host: byHost ? f.q.toLowerCase() : null,
        byHost,
        offset: offsetOf(ctx.query),
      });
      if (!r.ok)
        return op.page({
          title: 'Car shares',
          section: 'carshares',
          body: listPage(noResults(), f),
          problem: problemOf(r.error),
        });
      // The car share whose host was typed comes first, once, before those whose name contains the text.
      const exact = (r.data.byHost?.nodes ?? []).filter(
        (c) => !r.data.byName.nodes.some((n) => n.id === c.id),
      );
      const page = { ...r.data.byName, nodes: [...exact, ...r.data.byName.nodes] };
      op.page({
        title: 'Car shares',
        section: 'carshares',
        notice: noticeOf(ctx.query.notice),
        body: listPage(page, f),
      });
    }),
  );

  router.get(
    '/new',
    kit.operator(async (_ctx, op) => {
      op.page({
        title: 'New car share',
        section: 'new',
        body: newPage({ baseUrl: '', name: '', username: '' }, op.user.csrf),
      });
    }),
  );

  router.post(
    '/new',
    kit.operator(async (_ctx, op) => {
      const v: NewCarShare = {
        baseUrl: text(op.form, 'baseUrl'),
        name: text(op.form, 'name'),
        username: text(op.form, 'operator-username'),
      };
      const password = text(op.form, 'operator-password');
      const r = await op.api.run<{
        createCarShare: {
          id: string;
          name: string;
          baseUrl: string;
          initialOperator: { username: string; password: string | null };
        };
      }>(CREATE, {
        input: {
          baseUrl: v.baseUrl,
          name: v.name,
          operator: { username: v.username, ...(password ? { password } : {}) },
        },
      });
      if (!r.ok) {
        const problem = problemOf(r.error);
        return op.page({
          title: 'New car share',
          section: 'new',
          problem,
          body: newPage(v, op.user.csrf, problem),
        });
      }
      // Answered here, not redirected: the generated password is in this page only, never in a URL.
      const c = r.data.createCarShare;
      op.page({
        title: 'The car share is created',
        section: 'new',
        body: createdPage(c, c.initialOperator.username, c.initialOperator.password),
      });
    }),
  );

  router.get(
    '/carshares/:id',
    kit.operator(async (ctx, op) =>
      showCarShare(op, String(ctx.params.id), { notice: noticeOf(ctx.query.notice) }),
    ),
  );
}
