// Reading the audit trail (CONTRACT §18): one search statement per page, newest first by default.

import { AuditEntry } from '../audit/audit-entry.entity.js';
import { searchRows, whereEquals } from '../db/search.js';
import type { Context } from '../graphql/context.js';
import { checkRange, type Page, type PageArgs, pageRequest } from '../shared/pagination.js';

/** The sortable fields of an audit entry and their columns (the platform's trail adds its own to these). */
export const auditColumns = {
  occurredDateUtc: 'occurred_date_utc',
  createdDateUtc: 'occurred_date_utc',
  lastModifiedDateUtc: 'occurred_date_utc',
  actorId: 'actor_id',
  actorType: 'actor_type',
  action: 'action',
  subjectType: 'subject_type',
  subjectId: 'subject_id',
  requestId: 'request_id',
} as const;

export interface AuditFilter extends PageArgs {
  actorId?: string | null;
  subjectType?: string | null;
  subjectId?: string | null;
  action?: string | null;
  fromUtc?: Date | null;
  toUtc?: Date | null;
}

export async function searchAuditEntries(ctx: Context, args: AuditFilter): Promise<Page<AuditEntry>> {
  const page = pageRequest(args, { fields: Object.keys(auditColumns), defaultSort: '-occurredDateUtc' });
  checkRange('fromUtc', args.fromUtc, 'toUtc', args.toUtc);
  const where: string[] = [];
  const params: unknown[] = [];
  whereEquals(where, params, args, {
    actorId: 'actor_id',
    subjectType: 'subject_type',
    subjectId: 'subject_id',
  });
  // Operation names are camelCase; people type them in any case.
  if (args.action?.trim()) {
    where.push('lower(action) = ?');
    params.push(args.action.trim().toLowerCase());
  }
  if (args.fromUtc) {
    where.push('occurred_date_utc >= ?');
    params.push(args.fromUtc);
  }
  if (args.toUtc) {
    where.push('occurred_date_utc < ?');
    params.push(args.toUtc);
  }
  const { rows, total } = await searchRows<Record<string, unknown>>(
    ctx.em,
    { table: 'audit_entry', where, params, columns: auditColumns },
    page,
  );
  return { ...page, total, nodes: rows.map((r) => ctx.em.map(AuditEntry, r)) };
}
