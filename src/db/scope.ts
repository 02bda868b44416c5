// The car-share scope in the data layer (CONTRACT §24, DESIGN.md "Many car shares"). All work on a car share's
// rows runs as DATABASE_APP_ROLE in a transaction that first sets `carshare.car_share_id` with SET LOCAL; row-level
// security then makes a statement that forgot its condition see nothing instead of another car share's rows.
// MikroORM's session context does the wrapping: an EntityManager from `carShareEm` opens every statement outside
// a transaction in a short one, and every transaction, with the role and the setting, and its forks inherit it.
import { AbstractSqlConnection, type EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from './orm.js';
import { runScoped } from './rows.js';

/** The setting every policy reads (`nullif(current_setting('carshare.car_share_id', true), '')::uuid`). */
export const CAR_SHARE_SETTING = 'carshare.car_share_id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let appRole: string | undefined = 'carshare_app';

/**
 * The role car share work runs as (DATABASE_APP_ROLE). `undefined` is the benchmark's switch that runs it as the
 * DATABASE_URL user, whom no policy binds (test/bench, CONTRACT §24's last paragraph); nothing else passes it.
 */
export function useAppRole(role: string | undefined): void {
  appRole = role;
}

export const currentAppRole = (): string | undefined => appRole;

/** The DATABASE_URL user (its connections may start as the app role: `openOrm`'s `appRole`). */
let deploymentRole: string | undefined;

/** The DATABASE_URL user, which work across car shares switches to (`deploymentEm`). */
export function useDeploymentRole(role: string): void {
  deploymentRole = role;
}

/** An EntityManager scoped to one car share: every statement it runs is in a transaction inside that scope. */
export function carShareEm(orm: Orm, carShareId: string): EntityManager {
  if (!UUID.test(carShareId)) throw new Error(`carShareEm: not a car share id: ${carShareId}`);
  const em = orm.em.fork();
  const role = appRole ?? deploymentRole;
  em.setSessionContext({ variables: { [CAR_SHARE_SETTING]: carShareId }, ...(role ? { role } : {}) });
  // What its statements name as their car share (src/db/car-share-condition.ts); its forks inherit it too.
  em.setFilterParams(CAR_SHARE_FILTER, { id: carShareId });
  return em;
}

/** Runs `work` in one transaction inside the car share's scope. */
export function inCarShare<T>(
  orm: Orm,
  carShareId: string,
  work: (em: EntityManager) => Promise<T>,
): Promise<T> {
  return carShareEm(orm, carShareId).transactional((em) => work(em as EntityManager));
}

/**
 * Work across car shares, as the DATABASE_URL user: the car share registry, finding which car shares have due
 * work (reading only `car_share_id`s and due times), the platform's own tables, start-up. Never a car share's rows.
 */
export function deploymentEm(orm: Orm): EntityManager {
  // Not a fork of the request's transaction when called inside one (MikroORM resolves `orm.em` to it): that would
  // carry the car share's role and setting into work across car shares (the platform's, src/platform).
  const em = orm.em.fork({ disableContextResolution: true });
  // The service's connections start as the app role, so that a statement outside any scope sees nothing: this
  // work switches back to the DATABASE_URL user, in a transaction like a car share's (src/db/database.ts).
  if (deploymentRole) em.setSessionContext({ role: deploymentRole });
  return em;
}

/** One statement of work across car shares (see `deploymentEm`), in a transaction as the DATABASE_URL user. */
export function deploymentSql<R = Record<string, unknown>>(
  orm: Orm,
  sql: string,
  params: readonly unknown[] = [],
): Promise<R[]> {
  // As the DATABASE_URL user for this statement alone, in one round trip (src/db/scoped-statement.ts).
  if (deploymentRole) return runScoped<R>(orm.em, { role: deploymentRole, carShareId: '' }, sql, params);
  return deploymentEm(orm).transactional((em) =>
    em.getConnection().execute<R[]>(sql, [...params], 'all', em.getTransactionContext()),
  );
}

/** The car share an EntityManager is scoped to, if any. */
export function carShareOf(em: EntityManager): string | undefined {
  const v = em.getSessionContext()?.variables?.[CAR_SHARE_SETTING];
  if (typeof v === 'string') return v;
  // A transaction put in a car share's scope by its own SET LOCAL (creating a car share) names it this way. The
  // global EntityManager (the migrator's) is in no scope, and refuses to be asked for its context's parameters.
  const own = em.getContext(false);
  if (own.global) return undefined;
  const p = (own.getFilterParams<{ id?: unknown }>(CAR_SHARE_FILTER) as { id?: unknown } | undefined)?.id;
  return typeof p === 'string' ? p : undefined;
}

/**
 * The name of the MikroORM filter (src/db/car-share-condition.ts) whose parameter `{ id }` is the car share an
 * EntityManager's statements name: set by `carShareEm`, and by a transaction that enters a scope by its own
 * SET LOCAL (`em.setFilterParams(CAR_SHARE_FILTER, { id })`).
 */
export const CAR_SHARE_FILTER = 'carShare';

// MikroORM applies a session context in two round trips (`select set_config(…)`, then `set local role …`). Ours is
// one uuid and one role, both checked, so one statement carries both, and it goes with the transaction's BEGIN and
// first statement in one round trip (src/db/transaction-edges.ts).
const proto = AbstractSqlConnection.prototype as unknown as {
  applySessionContext(
    trx: unknown,
    ctx: { variables?: Record<string, unknown>; role?: string },
    lc: unknown,
  ): Promise<void>;
  execute(sql: string, params: unknown[], method: string, trx: unknown, lc: unknown): Promise<unknown>;
};
const original = proto.applySessionContext;
proto.applySessionContext = async function (this: typeof proto, trx, ctx, lc) {
  const vars = Object.entries(ctx.variables ?? {});
  const id = vars.length === 1 && vars[0]![0] === CAR_SHARE_SETTING ? String(vars[0]![1]) : undefined;
  if (id === undefined || !UUID.test(id)) return original.call(this, trx, ctx, lc);
  const role = ctx.role ? `set local role "${ctx.role.replaceAll('"', '""')}"; ` : '';
  await this.execute(`${role}set local ${CAR_SHARE_SETTING} = '${id}'`, [], 'run', trx, lc);
};
