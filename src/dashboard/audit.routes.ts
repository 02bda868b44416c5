// The audit trail: who changed what, filtered by subject, actor, action and period (CONTRACT §18).
import type Router from '@koa/router';
import { auditSubjectTypes } from '../audit/audit-entry.entity.js';
import { type AuditQuery, auditPage, type Entry } from './audit.pages.js';
import { describeError } from './errors.js';
import type { Kit } from './kit.js';
import { dayStart, malformedIds, noResults, offsetOf, oneOf, param } from './query.js';

const SEARCH = `query($subjectType: AuditSubjectType, $subjectId: UUID, $actorId: UUID, $action: String,
  $from: DateTime, $to: DateTime, $offset: Int) {
  auditEntries(subjectType: $subjectType, subjectId: $subjectId, actorId: $actorId, action: $action,
    fromUtc: $from, toUtc: $to, limit: 50, offset: $offset) {
    total limit offset nodes { id occurredDateUtc actorId actorType action subjectType subjectId requestId } } }`;

const labels = {
  subjectId: 'Subject id',
  actorId: 'Actor id',
  from: 'From',
  to: 'Until',
  action: 'Action',
};

export function serveAuditPages(router: Router, kit: Kit): void {
  router.get(
    '/audit',
    kit.operator(async (ctx, op) => {
      const f: AuditQuery = {
        subjectType: oneOf(param(ctx, 'subjectType'), auditSubjectTypes),
        subjectId: param(ctx, 'subjectId'),
        actorId: param(ctx, 'actorId'),
        action: param(ctx, 'action'),
        from: param(ctx, 'from'),
        to: param(ctx, 'to'),
      };
      const offset = offsetOf(ctx.query);
      const empty = noResults(50);
      const malformed = malformedIds({ subjectId: f.subjectId, actorId: f.actorId }, labels);
      if (malformed)
        return op.page({
          title: 'Audit trail',
          section: 'audit',
          body: auditPage(empty, f),
          problem: malformed,
        });
      const r = await op.api.run<{
        auditEntries: { total: number; limit: number; offset: number; nodes: Entry[] };
      }>(SEARCH, {
        subjectType: f.subjectType || null,
        subjectId: f.subjectId || null,
        actorId: f.actorId || null,
        action: f.action || null,
        from: dayStart(f.from),
        to: dayStart(f.to),
        offset,
      });
      op.page({
        title: 'Audit trail',
        section: 'audit',
        body: auditPage(r.ok ? r.data.auditEntries : empty, f),
        problem: r.ok ? undefined : describeError(r.error, labels),
      });
    }),
  );
}
