// The platform's actions on one car share, each a POST with the session's CSRF token: save its name and limits,
// suspend, reactivate, add an operator (a generated password shown once), delete after its host is typed.
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Problem } from '../dashboard/errors.js';
import { html } from '../dashboard/html.js';
import { type Kit, type Op, text } from '../dashboard/kit.js';
import { ADD_OPERATOR, type CarShare, DELETE, ONE, problemOf, REACTIVATE, SUSPEND, UPDATE } from './api.js';
import { limitKeys } from './car-share.pages.js';
import { carSharePath, passwordOnce } from './car-shares.pages.js';
import { showCarShare } from './car-shares.routes.js';
import type { Notice } from './notices.js';

const fieldProblem = (field: string, label: string, message: string): Problem => ({
  summary: 'Some fields need your attention.',
  fields: [{ field, label, message }],
});

/** A limit as typed: empty returns it to the deployment's setting; anything but a whole number is refused here. */
function limits(op: Op): { limits: Record<string, number | null> } | { problem: Problem } {
  const out: Record<string, number | null> = {};
  for (const key of limitKeys) {
    const v = text(op.form, `limits-${key}`);
    if (v !== '' && !/^-?\d{1,9}$/.test(v))
      return {
        problem: fieldProblem(
          `limits-${key}`,
          'Rate limit',
          'A rate limit must be a whole number of requests per minute, or empty',
        ),
      };
    out[key] = v === '' ? null : Number(v);
  }
  return { limits: out };
}

export function serveCarShareActions(router: Router, kit: Kit): void {
  const done = (ctx: Koa.Context, id: string, notice: Notice) => {
    ctx.status = 303;
    ctx.redirect(`${carSharePath(id)}?notice=${notice}`);
  };

  /** A change of state or settings: the API's refusal is shown on the car share's page, success announced there. */
  const change = (
    path: string,
    notice: Notice,
    request: (op: Op) => { doc: string; input?: object } | Problem,
  ) =>
    router.post(
      `/carshares/:id${path}`,
      kit.operator(async (ctx, op) => {
        const id = String(ctx.params.id);
        const req = request(op);
        if ('summary' in req) return showCarShare(op, id, { problem: req });
        const r = await op.api.run(req.doc, { id, ...req.input });
        if (!r.ok) return showCarShare(op, id, { problem: problemOf(r.error) });
        done(ctx, id, notice);
      }),
    );
  change('', 'updated', (op) => {
    const l = limits(op);
    return 'problem' in l
      ? l.problem
      : { doc: UPDATE, input: { input: { name: text(op.form, 'name'), limits: l.limits } } };
  });
  change('/suspend', 'suspended', (op) => ({
    doc: SUSPEND,
    input: { reason: text(op.form, 'reason') || null },
  }));
  change('/reactivate', 'reactivated', () => ({ doc: REACTIVATE }));

  router.post(
    '/carshares/:id/operators',
    kit.operator(async (ctx, op) => {
      const id = String(ctx.params.id);
      const password = text(op.form, 'password');
      const r = await op.api.run<{ addCarShareOperator: { username: string; password: string | null } }>(
        ADD_OPERATOR,
        {
          id,
          input: { username: text(op.form, 'username'), ...(password ? { password } : {}) },
        },
      );
      if (!r.ok) return showCarShare(op, id, { problem: problemOf(r.error) });
      // Answered here, not redirected: a generated password is shown in this page only.
      const added = r.data.addCarShareOperator;
      await showCarShare(op, id, {
        extra: html`<div class="notice" role="status"><p>The operator was added.</p>${passwordOnce(added.username, added.password)}</div>`,
      });
    }),
  );

  router.post(
    '/carshares/:id/delete',
    kit.operator(async (ctx, op) => {
      const id = String(ctx.params.id);
      const found = await op.api.run<{ carShare: CarShare }>(ONE, { id });
      if (!found.ok) return showCarShare(op, id, { problem: problemOf(found.error) });
      const host = found.data.carShare.host;
      // Typed by hand, so a slip of the finger on the wrong car share's page deletes nothing.
      if (text(op.form, 'confirm').toLowerCase() !== host)
        return showCarShare(op, id, {
          problem: fieldProblem(
            'confirm',
            'Host',
            `Type the host exactly (${host}) to delete this car share; nothing was deleted`,
          ),
        });
      const r = await op.api.run(DELETE, { id });
      if (!r.ok) return showCarShare(op, id, { problem: problemOf(r.error) });
      ctx.status = 303;
      ctx.redirect('/platform?notice=deleted');
    }),
  );
}
