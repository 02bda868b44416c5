// Every car share of the deployment, in memory: a request's car share is found from its host with no SQL
// (CONTRACT §26). Loaded at start as the DATABASE_URL user (a read across car shares of the `car_share` table
// only), then kept current by the NOTIFY each change sends in its transaction (`carShareChanged`), on every
// instance. The default car share's `baseUrl` in a process is its PUBLIC_URL.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { deploymentSql } from '../db/scope.js';
import { type CarShare, hostKey, issuerOf } from './car-share.js';
import { CAR_SHARE_COLUMNS, type CarShareRow } from './car-share.row.js';

/** The channel a change to a car share is announced on; the payload is its Id. */
export const CAR_SHARE_CHANNEL = 'carshare_car_share';

export interface CarShareRegistry {
  /** The car share at a host (`Host` or `X-Forwarded-Host` value, any case, with or without port). */
  byHost(host: string): CarShare | undefined;
  byId(id: string): CarShare | undefined;
  readonly default: CarShare;
  all(): CarShare[];
  /** Reads every car share again (after a NOTIFY, or a reconnect that may have missed some). */
  refresh(): Promise<void>;
  /** Told the Id of each car share that was added, changed or went away, after a refresh. */
  onChange(fn: (id: string) => void): void;
  /**
   * Resolves once every change committed before the call, on any instance, is in this registry: the listening
   * connection's barrier (its NOTIFYs handled), then the refresh they started. Requests wait for it before their
   * car share is read, so a suspension is in force everywhere by the time its answer is sent (CONTRACT §23, §26).
   * Callers in one turn of the event loop share one barrier; without a listener it resolves at once. Resolves to
   * true when the barrier was passed (false: no listener, or it failed or took too long), which is what a cached
   * token check may then rely on (src/access/authenticate.ts `Heard`).
   */
  settled(): Promise<boolean>;
  /** The barrier of the connection that hears this registry's NOTIFYs, one per turn (listenForWork's `sync`). */
  listenWith(barrier: () => Promise<void>): void;
}

/** Waiting on a barrier longer than this serves the request by what is known (a database that stopped answering). */
const SETTLE_MAX_MS = 2000;

// The default first, then in the order they were made (list-car-shares shows them so).
// A deleted car share is no car share: its host is unknown from the moment it is deleted (CONTRACT §23).
const SELECT = `select ${CAR_SHARE_COLUMNS} from car_share
  where deleted_date_utc is null
  order by is_default desc, created_date_utc, id`;

export function fromRow(
  r: Omit<CarShareRow, 'created_date_utc' | 'last_modified_date_utc'>,
  publicUrl: string,
): CarShare {
  const baseUrl = r.is_default ? publicUrl : r.base_url;
  return {
    id: r.id,
    baseUrl,
    host: r.is_default ? hostKey(new URL(publicUrl).host) : r.host,
    name: r.name,
    status: r.status,
    suspendedReason: r.suspended_reason,
    suspendedDateUtc: r.suspended_date_utc === null ? null : new Date(r.suspended_date_utc),
    isDefault: r.is_default,
    limits: r.limits ?? {},
    issuer: issuerOf(baseUrl),
  };
}

/** Every car share, the default first; the default's address is PUBLIC_URL. */
export async function loadCarShares(orm: Orm, publicUrl: string): Promise<CarShare[]> {
  const rows = await deploymentSql<CarShareRow>(orm, SELECT);
  return rows.map((r) => fromRow(r, publicUrl));
}

/**
 * The registries open on each database in this process: a change made here (suspending a car share) refreshes them
 * before its command returns, so this instance answers by the new state at once; other instances hear the NOTIFY.
 */
const openOn = new WeakMap<Orm, Set<CarShareRegistry>>();

/** Reads every car share again in each registry of this process open on `orm` (none in the command line). */
export async function refreshRegistriesOn(orm: Orm): Promise<void> {
  await Promise.all([...(openOn.get(orm) ?? [])].map((r) => r.refresh()));
}

export async function openCarShareRegistry(orm: Orm, publicUrl: string): Promise<CarShareRegistry> {
  let byHost = new Map<string, CarShare>();
  let byId = new Map<string, CarShare>();
  let dflt: CarShare | undefined;
  const listeners: ((id: string) => void)[] = [];
  const install = (list: CarShare[]) => {
    const before = byId;
    byHost = new Map(list.map((c) => [c.host, c]));
    byId = new Map(list.map((c) => [c.id, c]));
    dflt = list.find((c) => c.isDefault);
    if (!dflt) throw new Error('no default car share: the database was not migrated');
    const changed = [...before.keys(), ...byId.keys()].filter(
      (id, i, all) =>
        all.indexOf(id) === i && JSON.stringify(before.get(id)) !== JSON.stringify(byId.get(id)),
    );
    for (const id of changed) for (const fn of listeners) fn(id);
  };
  let loading: Promise<void> | undefined;
  const refresh = (): Promise<void> => {
    // Refreshes asked for while one runs share the next one, which starts after it: none misses a change.
    const next = (loading ?? Promise.resolve()).then(async () =>
      install(await loadCarShares(orm, publicUrl)),
    );
    loading = next.finally(() => {
      if (loading === next) loading = undefined;
    });
    return next;
  };
  await refresh();
  let barrier: (() => Promise<void>) | undefined;
  // Callers of one turn share one barrier (the listener coalesces them), and so one wait for it: no timer and race
  // of their own for each request.
  let sharedBarrier: Promise<void> | undefined;
  let sharedWait: Promise<boolean> | undefined;
  const waitFor = async (passed: Promise<void>): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((ok) => {
      timer = setTimeout(() => ok(false), SETTLE_MAX_MS);
    });
    try {
      return await Promise.race([
        passed
          .then(() => loading)
          .then(
            () => true,
            () => false,
          ),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  const settled = (): Promise<boolean> => {
    if (!barrier) return Promise.resolve(false);
    const passed = barrier();
    if (passed !== sharedBarrier) {
      sharedBarrier = passed;
      sharedWait = waitFor(passed);
    }
    return sharedWait!;
  };
  const registry: CarShareRegistry = {
    byHost: (host) => byHost.get(hostKey(host)),
    byId: (id) => byId.get(id),
    get default() {
      return dflt!;
    },
    all: () => [...byId.values()],
    refresh,
    onChange: (fn) => void listeners.push(fn),
    settled,
    listenWith: (b) => {
      barrier = b;
    },
  };
  const open = openOn.get(orm) ?? new Set();
  openOn.set(orm, open.add(registry));
  return registry;
}

/** Announces a change to a car share to every instance, when (and only if) the transaction of `em` commits. */
export async function carShareChanged(em: EntityManager, id: string): Promise<void> {
  await em
    .getConnection()
    .execute('select pg_notify(?, ?)', [CAR_SHARE_CHANNEL, id], 'all', em.getTransactionContext());
}
