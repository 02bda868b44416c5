// Users: search by e-mail address or name, and suspend / reactivate an account.
import type Router from '@koa/router';
import { describeError } from './errors.js';
import { href, html } from './html.js';
import { type Kit, text } from './kit.js';
import { BASE, noticeOf } from './layout.js';
import { offsetOf } from './query.js';
import { type Account, usersPage } from './users.pages.js';

const SEARCH = `query($search: String, $status: AccountStatus, $offset: Int) {
  userAccounts(search: $search, status: $status, sort: "username", limit: 25, offset: $offset) { total limit offset nodes {
    id username roles status isVerifiedBorrower lastSignInDateUtc createdDateUtc
    profile { displayName firstName lastName } verifications { kind status } } } }`;
const ACTIONS = {
  suspend: {
    doc: `mutation($id: UUID!) { suspendUserAccount(id: $id) { id status } }`,
    notice: 'user-suspended',
  },
  reactivate: {
    doc: `mutation($id: UUID!) { reactivateUserAccount(id: $id) { id status } }`,
    notice: 'user-reactivated',
  },
} as const;

export function serveUserPages(router: Router, kit: Kit): void {
  router.get(
    '/users',
    kit.operator(async (ctx, op) => {
      const q = typeof ctx.query.q === 'string' ? ctx.query.q.trim().slice(0, 200) : '';
      const status =
        ctx.query.status === 'Active' || ctx.query.status === 'Suspended' ? ctx.query.status : '';
      const offset = offsetOf(ctx.query);
      const r = await op.api.run<{
        userAccounts: { total: number; limit: number; offset: number; nodes: Account[] };
      }>(SEARCH, {
        search: q || null,
        status: status || null,
        offset,
      });
      const back = href(`${BASE}/users`, { q, status, offset: offset || undefined });
      if (!r.ok)
        return op.page({ title: 'Users', section: 'users', body: html``, problem: describeError(r.error) });
      op.page({
        title: 'Users',
        section: 'users',
        notice: noticeOf(ctx.query.notice),
        body: usersPage(r.data.userAccounts, { q, status }, op.user.csrf, back),
      });
    }),
  );

  for (const [action, { doc, notice }] of Object.entries(ACTIONS))
    router.post(
      `/users/:id/${action}`,
      kit.operator(async (ctx, op) => {
        const r = await op.api.run(doc, { id: String(ctx.params.id) });
        const backTo = text(op.form, 'back');
        const back = backTo.startsWith(`${BASE}/users`) ? backTo : `${BASE}/users`;
        if (!r.ok)
          return op.page({
            title: `The account was not ${action === 'suspend' ? 'suspended' : 'reactivated'}`,
            section: 'users',
            body: html`<p><a href="${back}">Back to the users</a></p>`,
            problem: describeError(r.error),
          });
        ctx.status = 303;
        ctx.redirect(`${back}${back.includes('?') ? '&' : '?'}notice=${notice}`);
      }),
    );
}
