// Reading client applications (ops only; the permission table keeps everyone else out).
import { carShareIdOf } from '../db/car-share-condition.js';
import { placeholders, runSql } from '../db/rows.js';
import { searchRows } from '../db/search.js';
import type { Context } from '../graphql/context.js';
import { byKey, defineLoader } from '../graphql/loaders.js';
import { notFound } from '../shared/errors.js';
import { type Page, type PageArgs, pageRequest } from '../shared/pagination.js';
import { ClientApplication } from './client-application.entity.js';

const columns = {
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
  name: 'name',
  clientId: 'client_id',
  status: 'status',
  lastUsedDateUtc: 'last_used_date_utc',
} as const;

export const clientApplicationById = defineLoader<string, ClientApplication | null>(
  'clientApplicationById',
  async (em, ids) =>
    byKey(ids, await em.find(ClientApplication, { id: { $in: [...ids] } }), (a) => a.id, null),
);

/**
 * People holding a live grant of each app (by client id): they signed in through it and have not disconnected it,
 * nor has it been suspended. Expiry is compared with the database's clock, as oidc-provider wrote it from real time.
 */
export const connectedUsersByClientId = defineLoader<string, number>(
  'connectedUsersByClientId',
  async (em, ids) => {
    const rows = await runSql<{ client_id: string; n: string }>(
      em,
      `select client_id, count(distinct account_id) as n from oauth_model
       where car_share_id = ? and model = 'Grant' and client_id in (${placeholders(ids.length)})
         and account_id is not null and (expires_at is null or expires_at > now())
       group by client_id`,
      [carShareIdOf(em), ...ids],
    );
    return byKey(ids, rows, (r) => r.client_id, undefined).map((r) => Number(r?.n ?? 0));
  },
);

export interface ClientApplicationFilter extends PageArgs {
  name?: string | null;
  status?: string | null;
}

export async function searchClientApplications(
  ctx: Context,
  args: ClientApplicationFilter,
): Promise<Page<ClientApplication>> {
  const page = pageRequest(args, { fields: Object.keys(columns), defaultSort: '-createdDateUtc' });
  const where: string[] = [];
  const params: unknown[] = [];
  if (args.name) {
    where.push(`lower(name) like ? escape '\\'`);
    params.push(
      `%${args.name
        .trim()
        .toLowerCase()
        .replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    );
  }
  if (args.status) {
    where.push('status = ?');
    params.push(args.status);
  }
  const { rows, total } = await searchRows<Record<string, unknown>>(
    ctx.em,
    { table: 'client_application', where, params, columns },
    page,
  );
  return { ...page, total, nodes: rows.map((r) => ctx.em.map(ClientApplication, r)) };
}

export async function getClientApplication(ctx: Context, id: string): Promise<ClientApplication> {
  const app = await clientApplicationById(ctx).load(id);
  if (!app) throw notFound('Client application');
  return app;
}
