// Deleting a car share (CONTRACT §22, §23 "Deleted"): only a suspended one, never the default. The deletion itself
// releases the host and makes the Id unknown at once, on every instance, and drops what could still be delivered;
// the purge then removes every row naming the car share, each table in the car share's own scope (§24 rule 5),
// and finally its car_share row. The purge runs right after the deletion and again on every sweep, so a purge
// cut short (a stop, a crash) is finished by any instance.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { deploymentEm, deploymentSql, inCarShare } from '../db/scope.js';
import { invalidState } from '../shared/errors.js';
import type { PlatformAuditBy } from './car-share.lifecycle.js';
import { lockCarShare, refuseDefault, runIn } from './car-share.row.js';
import { carShareChanged, refreshRegistriesOn } from './registry.js';

/** Tables whose rows would still reach subscribers: emptied in the deletion's own transaction (no delivery after). */
const UNDELIVERABLE = ['webhook_delivery', 'outbox_event', 'webhook_subscription'] as const;

/**
 * Deletes a suspended car share. On return its host names no car share and its Id is unknown, here and (through the
 * NOTIFY) on every instance; its rows are left to `purgeDeletedCarShares`.
 */
export async function deleteCarShare(
  orm: Orm,
  id: string,
  _by: PlatformAuditBy,
  now: Date,
  /** Work in the deletion's transaction, as the DATABASE_URL user (the platform's own audit entry). */
  alongside?: (em: EntityManager) => Promise<void>,
): Promise<void> {
  await deploymentEm(orm).transactional(async (tem) => {
    const em = tem as EntityManager;
    const row = await lockCarShare(em, id);
    refuseDefault(row, 'deleted');
    if (row.status !== 'Suspended')
      throw invalidState(row.status, 'Only a suspended car share can be deleted: suspend it first');
    // The host goes at once (a new car share may take it); `.invalid` is a name no request can carry (RFC 6761).
    await runIn(
      em,
      `update car_share set deleted_date_utc = ?, host = ?, last_modified_date_utc = ? where id = ?`,
      [now, `${row.id}.deleted.invalid`, now, row.id],
    );
    for (const table of UNDELIVERABLE)
      await runIn(em, `delete from ${table} where car_share_id = ?`, [row.id]);
    await alongside?.(em);
    await carShareChanged(em, row.id);
  });
  await refreshRegistriesOn(orm);
}

/** The tables that hold car share data, from the catalog (src/db/car-share-tables.ts says why not a list). */
const CAR_SHARE_TABLES = `select c.oid::regclass::text as name
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attname = 'car_share_id' and not a.attisdropped
   where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
     and n.nspname not like 'pg\\_toast%'
   order by 1`;

/** Removes every row of each deleted car share, then its car_share row; returns the Ids purged. */
export async function purgeDeletedCarShares(orm: Orm): Promise<string[]> {
  const deleted = await deploymentSql<{ id: string }>(
    orm,
    'select id from car_share where deleted_date_utc is not null order by deleted_date_utc',
  );
  if (deleted.length === 0) return [];
  const tables = (await deploymentSql<{ name: string }>(orm, CAR_SHARE_TABLES)).map((t) => t.name);
  for (const { id } of deleted) {
    // One transaction in the car share's scope: the keys between its tables are deferred and cascade, so the
    // order of the tables does not matter.
    await inCarShare(orm, id, async (em) => {
      for (const table of tables) await runIn(em, `delete from ${table} where car_share_id = ?`, [id]);
    });
    await deploymentSql(orm, 'delete from car_share where id = ? and deleted_date_utc is not null', [id]);
  }
  return deleted.map((d) => d.id);
}
