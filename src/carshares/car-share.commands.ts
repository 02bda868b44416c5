// Creating a car share (CONTRACT §19, §22): its row, then its first work inside its own scope, in one transaction;
// the NOTIFY that tells every instance goes with the commit. Used by the admin command line (and the platform's).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { CAR_SHARE_FILTER, CAR_SHARE_SETTING, currentAppRole, deploymentEm } from '../db/scope.js';
import { DomainError, fieldLabel } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { Check } from '../shared/validation.js';
import { type CarShare, hostKey, issuerOf } from './car-share.js';
import { carShareChanged } from './registry.js';

export interface CreateCarShareInput {
  baseUrl: string | null | undefined;
  name: string | null | undefined;
}

const ORIGIN_RULE =
  'an https origin: https://, a host and an optional port; no path, query, fragment or user info';

/**
 * A `BaseUrl` as §19 allows it (scheme https, a host, an optional port, at most a lone `/` after it), as the origin
 * to store (host lowercase, no trailing slash) and the host requests are matched on; undefined when refused.
 */
export function checkBaseUrl(
  check: Check,
  field: string,
  value: string | null | undefined,
): { baseUrl: string; host: string } | undefined {
  if (!check.required(field, value)) return undefined;
  const raw = value!.trim();
  if (check.length(field, raw, 1, 2048).failed(field)) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  const plain =
    url !== undefined &&
    url.protocol === 'https:' &&
    url.hostname !== '' &&
    url.pathname === '/' &&
    !/[?#]/.test(raw) &&
    !/^https:\/\/[^/]*@/i.test(raw) &&
    url.username === '' &&
    url.password === '';
  const host = plain ? hostKey(url!.host) : '';
  if (!plain || host === '' || host.length > 255) {
    check.add('InvalidFormat', field, `${fieldLabel(field)} must be ${ORIGIN_RULE}`);
    return undefined;
  }
  return { baseUrl: url!.origin, host };
}

/** Puts the transaction of `em` in the car share's scope: its setting, then (last) the app role, as carShareEm. */
export async function enterScope(em: EntityManager, carShareId: string, role: boolean): Promise<void> {
  const appRole = currentAppRole();
  const set = `set local ${CAR_SHARE_SETTING} = '${carShareId}'`;
  const sql = role && appRole ? `${set}; set local role "${appRole.replaceAll('"', '""')}"` : set;
  await em.getConnection().execute(sql, [], 'run', em.getTransactionContext());
}

/**
 * Creates a car share and runs `inScope` (its first operator, its audit entry) inside the new car share's scope, in
 * the same transaction: either the car share exists with all of it, or nothing was written. The row is inserted as
 * the DATABASE_URL user with the setting already naming it, so row-level security's check holds for any such user.
 */
export async function createCarShare<T>(
  orm: Orm,
  input: CreateCarShareInput,
  inScope: (em: EntityManager, carShare: CarShare) => Promise<T>,
  /** Work outside the new car share's scope, as the DATABASE_URL user (the platform's own audit entry). */
  asDeployment?: (em: EntityManager, carShare: CarShare) => Promise<void>,
): Promise<{ carShare: CarShare; result: T }> {
  const check = new Check();
  const address = checkBaseUrl(check, 'baseUrl', input.baseUrl);
  const name = input.name?.trim();
  if (check.required('name', name)) check.length('name', name, 3, 100);
  check.throwIfAny();
  const { baseUrl, host } = address!;
  const carShare: CarShare = {
    id: newId(),
    baseUrl,
    host,
    name: name!,
    status: 'Active',
    isDefault: false,
    limits: {},
    issuer: issuerOf(baseUrl),
  };
  return deploymentEm(orm).transactional(async (tem) => {
    const em = tem as EntityManager;
    await enterScope(em, carShare.id, false);
    const inserted = await em.getConnection().execute<{ id: string }[]>(
      `insert into car_share (id, base_url, host, name) values (?, ?, ?, ?)
         on conflict (host) do nothing returning id`,
      [carShare.id, baseUrl, host, carShare.name],
      'all',
      em.getTransactionContext(),
    );
    if (inserted.length === 0)
      throw new DomainError('AlreadyExists', `The host of BaseUrl (${host}) belongs to another car share`, {
        field: 'baseUrl',
      });
    await asDeployment?.(em, carShare);
    await enterScope(em, carShare.id, true);
    // Its statements name the new car share (CONTRACT §25, src/db/car-share-condition.ts).
    em.setFilterParams(CAR_SHARE_FILTER, { id: carShare.id });
    const result = await inScope(em, carShare);
    await em.flush();
    await carShareChanged(em, carShare.id);
    return { carShare, result };
  });
}
