// Every statement names its car share (CONTRACT §25): row-level security keeps a statement inside its scope, but
// only a `car_share_id = $n` condition in the statement lets a distributed PostgreSQL route it to one shard. Raw
// statements write the condition themselves (`carShareIdOf(em)` as the parameter); this file makes MikroORM's own
// statements name it too:
// - every entity maps `car_share_id` as `carShareId` (`carShareIdProperty`), set on create from the scope, so an
//   insert names the column with its value;
// - the `carShare` filter (default on, given to `openOrm`) adds `car_share_id = ?` to every find, count,
//   nativeUpdate and nativeDelete of a scoped EntityManager (the scope is `carShareOf(em)`: the session context
//   of `carShareEm`, or the filter's parameter); an EntityManager with no scope (`deploymentEm`) gets nothing, as
//   it reads across car shares;
// - a flush updates and deletes loaded entities by primary key only (`where id = ?`, MikroORM knows no other key),
//   so its updates and deletes are given the entity's own `carShareId` as a second condition here. Updates of a
//   car share entity are then one statement per entity (MikroORM's batched `update … set x = case …` has no place
//   for it).
import { type ChangeSet, ChangeSetPersister, type EntityMetadata, p } from '@mikro-orm/core';
import { AbstractSqlDriver, type EntityManager } from '@mikro-orm/postgresql';
import { CAR_SHARE_FILTER, carShareOf } from './scope.js';

/** The property every car share entity has: its `car_share_id`, set from the scope when the entity is created. */
export const carShareIdProperty = () =>
  p
    .uuid()
    .fieldName('car_share_id')
    .onCreate((_entity, em) => carShareOf(em as EntityManager) as string);

/** The car share an EntityManager is scoped to; a statement that must name it cannot run without one. */
export function carShareIdOf(em: EntityManager): string {
  const id = carShareOf(em);
  if (id === undefined) throw new Error('a car share statement outside a car share scope (src/db/scope.ts)');
  return id;
}

const hasCarShare = (meta: EntityMetadata | undefined): boolean => !!meta?.root.properties.carShareId;

/** The `carShare` filter of `openOrm`: `car_share_id = ?` for a scoped EntityManager's car share entities. */
export const carShareFilter = {
  name: CAR_SHARE_FILTER,
  default: true,
  args: false,
  cond: (_args: unknown, _type: unknown, em: EntityManager, _options: unknown, entityName?: string) => {
    const id = carShareOf(em);
    if (id === undefined || entityName === undefined) return {};
    return hasCarShare(em.getMetadata().getByClassName(entityName, false)) ? { carShareId: id } : {};
  },
};

// A flush's updates and deletes: the change sets of one entity type, grouped by their car share (one, in a
// scope), go on with it as an option that the driver below turns into a condition.
type Persister = {
  executeUpdates(
    cs: ChangeSet<object>[],
    batched: boolean,
    options?: Opts,
    withSchema?: boolean,
  ): Promise<void>;
  executeDeletes(cs: ChangeSet<object>[], options?: Opts, withSchema?: boolean): Promise<void>;
};
type Opts = Record<string, unknown> & { carShareId?: string };

function byCarShare(changeSets: ChangeSet<object>[]): Map<string | undefined, ChangeSet<object>[]> {
  const groups = new Map<string | undefined, ChangeSet<object>[]>();
  for (const cs of changeSets) {
    const original = cs.originalEntity as { carShareId?: string } | undefined;
    const id = original?.carShareId ?? (cs.entity as { carShareId?: string }).carShareId;
    const group = groups.get(id);
    if (group) group.push(cs);
    else groups.set(id, [cs]);
  }
  return groups;
}

const persister = ChangeSetPersister.prototype as unknown as Persister;
const executeUpdates = persister.executeUpdates;
persister.executeUpdates = async function (this: Persister, changeSets, batched, options, withSchema) {
  if (options?.carShareId || !hasCarShare(changeSets[0]?.meta as EntityMetadata | undefined))
    return executeUpdates.call(this, changeSets, batched, options, withSchema);
  for (const [id, group] of byCarShare(changeSets)) {
    if (id === undefined) await executeUpdates.call(this, group, batched, options, withSchema);
    else await executeUpdates.call(this, group, false, { ...options, carShareId: id }, withSchema);
  }
};
const executeDeletes = persister.executeDeletes;
persister.executeDeletes = async function (this: Persister, changeSets, options, withSchema) {
  if (options?.carShareId || !hasCarShare(changeSets[0]?.meta as EntityMetadata | undefined))
    return executeDeletes.call(this, changeSets, options, withSchema);
  for (const [id, group] of byCarShare(changeSets))
    await executeDeletes.call(
      this,
      group,
      id === undefined ? options : { ...options, carShareId: id },
      withSchema,
    );
};

type Driver = {
  nativeUpdate(entityName: unknown, where: unknown, data: unknown, options?: Opts): Promise<unknown>;
  nativeDelete(entityName: unknown, where: unknown, options?: Opts): Promise<unknown>;
};
const driver = AbstractSqlDriver.prototype as unknown as Driver;
/** A flush's condition (a primary key object, or `{ id: { $in } }`) with the entity's car share added. */
const withCarShare = (where: unknown, id: string) => ({ ...(where as object), carShareId: id });
const nativeUpdate = driver.nativeUpdate;
driver.nativeUpdate = function (this: Driver, entityName, where, data, options = {}) {
  const { carShareId, ...rest } = options;
  if (!carShareId || rest.upsert) return nativeUpdate.call(this, entityName, where, data, options);
  return nativeUpdate.call(this, entityName, withCarShare(where, carShareId), data, rest);
};
const nativeDelete = driver.nativeDelete;
driver.nativeDelete = function (this: Driver, entityName, where, options = {}) {
  const { carShareId, ...rest } = options;
  if (!carShareId) return nativeDelete.call(this, entityName, where, options);
  return nativeDelete.call(this, entityName, withCarShare(where, carShareId), rest);
};
