// Every car share of the deployment, in memory: a request's car share is found from its host with no SQL
// (CONTRACT §26). Loaded at start as the DATABASE_URL user (a read across car shares of the `car_share` table
// only), then kept current by the NOTIFY each change sends in its transaction (`carShareChanged`), on every
// instance. The default car share's `baseUrl` in a process is its PUBLIC_URL.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { deploymentSql } from '../db/scope.js';
import { type CarShare, type CarShareLimits, type CarShareStatus, hostKey, issuerOf } from './car-share.js';

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
}

interface CarShareRow {
  id: string;
  base_url: string;
  host: string;
  name: string;
  status: CarShareStatus;
  is_default: boolean;
  limits: CarShareLimits | null;
}

const SELECT = 'select id, base_url, host, name, status, is_default, limits from car_share';

function fromRow(r: CarShareRow, publicUrl: string): CarShare {
  const baseUrl = r.is_default ? publicUrl : r.base_url;
  return {
    id: r.id,
    baseUrl,
    host: r.is_default ? hostKey(new URL(publicUrl).host) : r.host,
    name: r.name,
    status: r.status,
    isDefault: r.is_default,
    limits: r.limits ?? {},
    issuer: issuerOf(baseUrl),
  };
}

export async function loadCarShares(orm: Orm, publicUrl: string): Promise<CarShare[]> {
  const rows = await deploymentSql<CarShareRow>(orm, SELECT);
  return rows.map((r) => fromRow(r, publicUrl));
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
  return {
    byHost: (host) => byHost.get(hostKey(host)),
    byId: (id) => byId.get(id),
    get default() {
      return dflt!;
    },
    all: () => [...byId.values()],
    refresh,
    onChange: (fn) => void listeners.push(fn),
  };
}

/** Announces a change to a car share to every instance, when (and only if) the transaction of `em` commits. */
export async function carShareChanged(em: EntityManager, id: string): Promise<void> {
  await em
    .getConnection()
    .execute('select pg_notify(?, ?)', [CAR_SHARE_CHANNEL, id], 'all', em.getTransactionContext());
}
