// Reading verifications: the search with its visibility rule, and one by id.

import { actorClass, hasScope } from '../access/actor.js';
import { plainRows } from '../db/rows.js';
import { searchRows, whereEquals } from '../db/search.js';
import type { Context } from '../graphql/context.js';
import { notFound } from '../shared/errors.js';
import { type Page, type PageArgs, pageRequest } from '../shared/pagination.js';
import { canSee } from './verification.commands.js';
import { Verification } from './verification.entity.js';
import { verificationById } from './verification.loaders.js';

const columns = {
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
  kind: 'kind',
  status: 'status',
  subjectType: 'subject_type',
  subjectId: 'subject_id',
  expiresDateUtc: 'expires_date_utc',
  decidedDateUtc: 'decided_date_utc',
  decidedById: 'decided_by_id',
  reason: 'reason',
} as const;

export interface VerificationFilter extends PageArgs {
  subjectType?: string | null;
  subjectId?: string | null;
  status?: string | null;
  kind?: string | null;
}

export async function searchVerifications(
  ctx: Context,
  args: VerificationFilter,
): Promise<Page<Verification>> {
  const page = pageRequest(args, { fields: Object.keys(columns), defaultSort: '-createdDateUtc' });
  const where: string[] = [];
  const params: unknown[] = [];
  const cls = actorClass(ctx.actor);
  const seesAll =
    cls === 'ops' ||
    (cls === 'clientapplication' &&
      (hasScope(ctx.actor, 'verifications:read') || hasScope(ctx.actor, 'verifications:write')));
  if (!seesAll) {
    where.push('subject_user_id = ?');
    params.push(ctx.actor.id);
  }
  whereEquals(where, params, args, {
    subjectType: 'subject_type',
    subjectId: 'subject_id',
    status: 'status',
    kind: 'kind',
  });
  const { rows, total } = await searchRows<Record<string, unknown>>(
    ctx.em,
    { table: 'verification', where, params, columns },
    page,
  );
  return { ...page, total, nodes: plainRows(ctx.em, Verification, rows) };
}

export async function getVerification(ctx: Context, id: string): Promise<Verification> {
  const v = await verificationById(ctx).load(id);
  if (!v || !canSee(ctx.actor, v)) throw notFound('Verification');
  return v;
}
