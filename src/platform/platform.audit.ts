// The platform's own audit trail (CONTRACT §22): who on the platform did what, to which car share. Kept in
// `platform_audit_entry`, a platform table (§24 rule 1) that names the car share in `about_car_share_id`, so it
// outlives a deleted car share. Written as the DATABASE_URL user, read with `platformAudit`.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isCommandLine } from '../access/actor.js';
import { auditColumns } from '../audit-search/audit.queries.js';
import { runIn } from '../carshares/car-share.row.js';
import type { Orm } from '../db/orm.js';
import { deploymentEm } from '../db/scope.js';
import { searchRows } from '../db/search.js';
import type { Context } from '../graphql/context.js';
import { newId } from '../shared/ids.js';
import { checkRange, type Page, type PageArgs, pageRequest } from '../shared/pagination.js';

export interface PlatformAction {
  action: string;
  subjectType: 'CarShare' | 'UserAccount';
  subjectId: string;
  carShareId: string;
}

/** Records a platform action on `em`, a transaction as the DATABASE_URL user, naming the caller. */
export async function recordPlatformAudit(
  em: EntityManager,
  ctx: Pick<Context, 'actor' | 'clock' | 'requestId'>,
  a: PlatformAction,
): Promise<void> {
  const cli = isCommandLine(ctx.actor);
  await runIn(
    em,
    `insert into platform_audit_entry (id, occurred_date_utc, actor_id, actor_type, action, subject_type, subject_id,
       request_id, about_car_share_id) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      newId(),
      ctx.clock.now(),
      // The admin command line is no account or application, and answers no request (CONTRACT §27).
      cli ? null : ctx.actor.id,
      cli ? 'Cli' : ctx.actor.kind === 'clientapplication' ? 'ClientApplication' : 'UserAccount',
      a.action,
      a.subjectType,
      a.subjectId,
      cli ? null : ctx.requestId,
      a.carShareId,
    ],
  );
}

/** Records a platform action in a transaction of its own (after a change that ran its own). */
export const auditPlatformAction = (
  orm: Orm,
  ctx: Pick<Context, 'actor' | 'clock' | 'requestId'>,
  a: PlatformAction,
): Promise<void> => deploymentEm(orm).transactional((em) => recordPlatformAudit(em as EntityManager, ctx, a));

const columns = { ...auditColumns, carShareId: 'about_car_share_id' } as const;

export interface PlatformAuditFilter extends PageArgs {
  carShareId?: string | null;
  actorId?: string | null;
  action?: string | null;
  fromUtc?: Date | null;
  toUtc?: Date | null;
}

interface EntryRow {
  id: string;
  occurred_date_utc: Date;
  actor_id: string | null;
  actor_type: string;
  action: string;
  subject_type: string;
  subject_id: string;
  request_id: string | null;
  about_car_share_id: string;
}

export async function searchPlatformAudit(orm: Orm, args: PlatformAuditFilter): Promise<Page<unknown>> {
  const page = pageRequest(args, { fields: Object.keys(columns), defaultSort: '-occurredDateUtc' });
  checkRange('fromUtc', args.fromUtc, 'toUtc', args.toUtc);
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, v: unknown) => {
    where.push(sql);
    params.push(v);
  };
  if (args.carShareId) add('about_car_share_id = ?', args.carShareId);
  if (args.actorId) add('actor_id = ?', args.actorId);
  if (args.action?.trim()) add('lower(action) = ?', args.action.trim().toLowerCase());
  if (args.fromUtc) add('occurred_date_utc >= ?', args.fromUtc);
  if (args.toUtc) add('occurred_date_utc < ?', args.toUtc);
  const { rows, total } = await deploymentEm(orm).transactional((em) =>
    searchRows<EntryRow>(
      em as EntityManager,
      { table: 'platform_audit_entry', where, params, columns },
      page,
    ),
  );
  const nodes = rows.map((r) => ({
    id: r.id,
    occurredDateUtc: r.occurred_date_utc,
    createdDateUtc: r.occurred_date_utc,
    lastModifiedDateUtc: r.occurred_date_utc,
    actorId: r.actor_id,
    actorType: r.actor_type,
    action: r.action,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    requestId: r.request_id,
    carShareId: r.about_car_share_id,
  }));
  return { ...page, total, nodes };
}
