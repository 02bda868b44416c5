// The default car share (CONTRACT §19): the one at PUBLIC_URL. The migration that made car shares created its
// row (an upgrade's data became its data); each start sets its address to PUBLIC_URL, and the first one its
// name. A PUBLIC_URL whose host is another car share's is refused: the start exits 1 naming PUBLIC_URL.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { runRead } from '../db/rows.js';
import { carShareOf, deploymentEm } from '../db/scope.js';
import { hostKey } from './car-share.js';
import { carShareChanged } from './registry.js';

export class PublicUrlTaken extends Error {}

export async function ensureDefaultCarShare(
  orm: Orm,
  opts: { publicUrl: string; defaultName: string },
): Promise<void> {
  const host = hostKey(new URL(opts.publicUrl).host);
  await deploymentEm(orm).transactional(async (em) => {
    const run = <T>(sql: string, params: unknown[] = []) =>
      em.getConnection().execute<T[]>(sql, params, 'all', em.getTransactionContext());
    const [other] = await run<{ id: string }>('select id from car_share where host = ? and not is_default', [
      host,
    ]);
    if (other)
      throw new PublicUrlTaken(
        `PUBLIC_URL ${opts.publicUrl}: its host ${host} belongs to another car share (${other.id}); ` +
          'set PUBLIC_URL to the default car share’s address',
      );
    const [row] = await run<{ id: string; changed: boolean }>(
      `update car_share set
         base_url = ?, host = ?,
         name = case when name = '' then ? else name end,
         last_modified_date_utc = case when base_url <> ? or name = '' then now() else last_modified_date_utc end
       where is_default
       returning id, true as changed`,
      [opts.publicUrl, host, opts.defaultName, opts.publicUrl],
    );
    if (!row) throw new Error('no default car share: the database was not migrated');
    await carShareChanged(em, row.id);
  });
}

/**
 * Whether the car share `em` is scoped to is the default one: the only one whose accounts may hold role `platform`
 * and whose client applications may be allowed scope `platform` (§22). Its own row is the one it can read.
 */
export async function inDefaultCarShare(em: EntityManager): Promise<boolean> {
  const id = carShareOf(em);
  if (!id) return false;
  const rows = await runRead<{ is_default: boolean }>(em, 'select is_default from car_share where id = ?', [
    id,
  ]);
  return rows[0]?.is_default === true;
}
