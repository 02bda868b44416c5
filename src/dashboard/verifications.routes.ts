// The verification queue (Pending by default, oldest first) with evidence, and verify / reject with a reason.
import type Router from '@koa/router';
import { verificationKinds, verificationStatuses } from '../verifications/verification.entity.js';
import { describeError, type Problem } from './errors.js';
import { href } from './html.js';
import { type Kit, type Op, text } from './kit.js';
import { BASE, noticeOf } from './layout.js';
import { noResults, offsetOf, oneOf } from './query.js';
import { type Filter, queuePage, type Subjects, type Verification } from './verifications.pages.js';

const QUEUE = `query($status: VerificationStatus, $kind: VerificationKind, $subjectId: UUID, $offset: Int) {
  verifications(status: $status, kind: $kind, subjectId: $subjectId, sort: "lastModifiedDateUtc", limit: 25, offset: $offset) {
    total limit offset nodes { id subjectType subjectId kind status evidence expiresDateUtc decidedDateUtc reason lastModifiedDateUtc } } }`;
const DECIDE = {
  verify: `mutation($id: UUID!, $input: DecideVerificationInput) { verifyVerification(id: $id, input: $input) { id status } }`,
  reject: `mutation($id: UUID!, $input: DecideVerificationInput) { rejectVerification(id: $id, input: $input) { id status } }`,
} as const;

type Page = { total: number; limit: number; offset: number; nodes: Verification[] };

type SubjectRow = {
  id: string;
  username?: string;
  profile?: { firstName: string; lastName: string };
  make?: string;
  model?: string;
  licensePlate?: { jurisdiction: string; number: string };
};

/** Names and plates of the page's subjects in one request (aliases); ids are shown if it fails. */
async function subjectsOf(op: Op, nodes: Verification[]): Promise<Subjects> {
  const ids = [...new Map(nodes.map((v) => [v.subjectId, v.subjectType])).entries()];
  if (ids.length === 0) return {};
  const fields = ids.map(([, type], i) =>
    type === 'Car'
      ? `s${i}: car(id: $s${i}) { id make model licensePlate { jurisdiction number } }`
      : `s${i}: userAccount(id: $s${i}) { id username profile { firstName lastName } }`,
  );
  const doc = `query(${ids.map((_, i) => `$s${i}: UUID!`).join(', ')}) { ${fields.join(' ')} }`;
  const r = await op.api.run<Record<string, SubjectRow>>(
    doc,
    Object.fromEntries(ids.map(([id], i) => [`s${i}`, id])),
  );
  if (!r.ok) return {};
  const out: Subjects = {};
  for (const s of Object.values(r.data)) {
    if (s.username)
      out[s.id] = {
        label: `${s.profile?.firstName} ${s.profile?.lastName} (${s.username})`,
        username: s.username,
      };
    else
      out[s.id] = {
        label: `${s.make} ${s.model}, ${s.licensePlate?.jurisdiction} ${s.licensePlate?.number}`,
      };
  }
  return out;
}

export function serveVerificationPages(router: Router, kit: Kit): void {
  const show = async (op: Op, query: Record<string, unknown>, problem?: Problem, notice?: string) => {
    const f: Filter = {
      status: query.status === undefined ? 'Pending' : oneOf(query.status, verificationStatuses),
      kind: oneOf(query.kind, verificationKinds),
      subjectId:
        typeof query.subjectId === 'string' && /^[0-9a-f-]{36}$/.test(query.subjectId) ? query.subjectId : '',
    };
    const vars = {
      status: f.status || null,
      kind: f.kind || null,
      subjectId: f.subjectId || null,
      offset: offsetOf(query),
    };
    const r = await op.api.run<{ verifications: Page }>(QUEUE, vars);
    const back = href(`${BASE}/verifications`, {
      status: f.status || 'any',
      kind: f.kind,
      subjectId: f.subjectId,
      offset: vars.offset || undefined,
    });
    if (!r.ok)
      return op.page({
        title: 'Verifications',
        section: 'verifications',
        body: queuePage(noResults(), f, {}, op.user.csrf, back),
        problem: describeError(r.error),
      });
    const subjects = await subjectsOf(op, r.data.verifications.nodes);
    op.page({
      title: 'Verifications',
      section: 'verifications',
      notice,
      problem,
      body: queuePage(r.data.verifications, f, subjects, op.user.csrf, back, problem),
    });
  };

  router.get(
    '/verifications',
    kit.operator(async (ctx, op) => show(op, ctx.query, undefined, noticeOf(ctx.query.notice))),
  );

  router.post(
    '/verifications/:id/decide',
    kit.operator(async (ctx, op) => {
      const id = String(ctx.params.id);
      const decision = text(op.form, 'decision') === 'reject' ? 'reject' : 'verify';
      const reason = text(op.form, 'reason');
      const backTo = text(op.form, 'back');
      const back = backTo.startsWith(`${BASE}/verifications`) ? backTo : `${BASE}/verifications`;
      const backQuery = Object.fromEntries(new URL(back, 'https://x').searchParams);
      if (decision === 'reject' && !reason) {
        const field = `reason-${id}`;
        const problem = {
          summary: 'Some fields need your attention.',
          fields: [
            {
              field,
              label: 'Reason',
              message: 'Reason: say why it is rejected, so the person knows what to fix.',
            },
          ],
        };
        return show(op, backQuery, problem);
      }
      const r = await op.api.run(DECIDE[decision], { id, input: reason ? { reason } : null });
      if (!r.ok) {
        const p = describeError(r.error, { reason: 'Reason', 'input.reason': 'Reason' });
        const problem = { ...p, fields: p.fields.map((f) => ({ ...f, field: `reason-${id}` })) };
        return show(op, backQuery, problem);
      }
      ctx.status = 303;
      const sep = back.includes('?') ? '&' : '?';
      ctx.redirect(`${back}${sep}notice=verification-${decision === 'reject' ? 'rejected' : 'verified'}`);
    }),
  );
}
