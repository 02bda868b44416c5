// Reading car shares for the platform (CONTRACT §22): their rows in `car_share`, and their usage counted across
// car shares as the DATABASE_URL user. Counting reads no car share's rows into the process, only their numbers.
import type { EntityManager } from '@mikro-orm/postgresql';
import { hostKey, issuerOf } from '../carshares/car-share.js';
import { CAR_SHARE_COLUMNS, type CarShareRow } from '../carshares/car-share.row.js';
import type { Orm } from '../db/orm.js';
import { placeholders } from '../db/rows.js';
import { deploymentEm, deploymentSql } from '../db/scope.js';
import { searchRows } from '../db/search.js';
import { notFound } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { type Page, type PageArgs, pageRequest } from '../shared/pagination.js';

/** A car share as its GraphQL type shows it (`usage` is resolved apart). */
export interface CarShareNode {
  id: string;
  baseUrl: string;
  host: string;
  name: string;
  status: string;
  suspendedReason: string | null;
  suspendedDateUtc: Date | null;
  isDefault: boolean;
  issuer: string;
  limits: Record<string, number | undefined>;
  createdDateUtc: Date;
  lastModifiedDateUtc: Date;
}

export function carShareNode(r: CarShareRow): CarShareNode {
  const l = r.limits ?? {};
  return {
    id: r.id,
    baseUrl: r.base_url,
    host: r.host,
    name: r.name,
    status: r.status,
    suspendedReason: r.suspended_reason,
    suspendedDateUtc: r.suspended_date_utc,
    isDefault: r.is_default,
    issuer: issuerOf(r.base_url),
    limits: {
      callerPerMinute: l.CallerPerMinute,
      anonymousPerMinute: l.AnonymousPerMinute,
      authPerMinute: l.AuthPerMinute,
      carSharePerMinute: l.CarSharePerMinute,
    },
    createdDateUtc: r.created_date_utc,
    lastModifiedDateUtc: r.last_modified_date_utc,
  };
}

const columns = {
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
  name: 'name',
  host: 'host',
  status: 'status',
  baseUrl: 'base_url',
} as const;

export interface CarShareFilter extends PageArgs {
  status?: string | null;
  host?: string | null;
  name?: string | null;
}

const likePattern = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function searchCarShares(orm: Orm, args: CarShareFilter): Promise<Page<CarShareNode>> {
  const page = pageRequest(args, { fields: Object.keys(columns), defaultSort: '-createdDateUtc' });
  // A deleted car share waits for its purge, unknown to everyone.
  const where = ['deleted_date_utc is null'];
  const params: unknown[] = [];
  if (args.status) {
    where.push('status = ?');
    params.push(args.status);
  }
  if (args.host?.trim()) {
    where.push('host = ?');
    params.push(hostKey(args.host));
  }
  if (args.name?.trim()) {
    where.push(`lower(name) like ? escape '\\'`);
    params.push(likePattern(args.name.trim()));
  }
  const { rows, total } = await deploymentEm(orm).transactional((em) =>
    searchRows<CarShareRow>(em as EntityManager, { table: 'car_share', where, params, columns }, page),
  );
  return { ...page, total, nodes: rows.map(carShareNode) };
}

export async function findCarShare(orm: Orm, id: string): Promise<CarShareNode> {
  if (!isUuid(id)) throw notFound('The car share');
  const [row] = await deploymentSql<CarShareRow>(
    orm,
    `select ${CAR_SHARE_COLUMNS} from car_share where id = ? and deleted_date_utc is null`,
    [id.toLowerCase()],
  );
  if (!row) throw notFound('The car share');
  return carShareNode(row);
}

export interface CarShareUsage {
  /** The car share's: the usage is embedded in it as a resource of its own (REST's `embed`). */
  id: string;
  userAccounts: number;
  operators: number;
  cars: number;
  listedCars: number;
  bookings: number;
  bookingsLast30Days: number;
  clientApplications: number;
  webhookSubscriptions: number;
  countedDateUtc: Date;
}

/** Counts per car share, one statement for all of them; every subquery leads with its table's car_share_id. */
export async function countUsage(orm: Orm, ids: readonly string[], now: Date): Promise<CarShareUsage[]> {
  const since = new Date(now.getTime() - 30 * 24 * 3600 * 1000);
  const count = (table: string, extra = '') =>
    `(select count(*) from ${table} t where t.car_share_id = cs.id${extra})::int`;
  const rows = await deploymentSql<Omit<CarShareUsage, 'countedDateUtc'>>(
    orm,
    `select cs.id,
       ${count('user_account')} as "userAccounts",
       ${count('user_account', ` and t.roles @> '["ops"]'::jsonb`)} as "operators",
       ${count('car')} as "cars",
       ${count('car', ` and t.status = 'Listed'`)} as "listedCars",
       ${count('car_booking')} as "bookings",
       ${count('car_booking', ' and t.created_date_utc >= ?')} as "bookingsLast30Days",
       ${count('client_application', ' and not t.is_first_party')} as "clientApplications",
       ${count('webhook_subscription')} as "webhookSubscriptions"
     from car_share cs where cs.id in (${placeholders(ids.length)})`,
    [since, ...ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => {
    const counts = byId.get(id) ?? {
      id,
      userAccounts: 0,
      operators: 0,
      cars: 0,
      listedCars: 0,
      bookings: 0,
      bookingsLast30Days: 0,
      clientApplications: 0,
      webhookSubscriptions: 0,
    };
    return { ...counts, countedDateUtc: now };
  });
}
