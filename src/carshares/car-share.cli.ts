// `npm run admin -- create-car-share | list-car-shares`, and the `--car-share ID|URL` every other admin command
// takes (CONTRACT §22): the car share a command works in, found as the edge finds one (by Id, or by host).
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../db/database.js';
import type { Orm } from '../db/orm.js';
import { deploymentSql } from '../db/scope.js';
import { type OptionNames, requireOptions } from '../shared/command-line.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { createCarShare } from './car-share.commands.js';
import { type CarShare, type CarShareStatus, hostKey } from './car-share.js';

export const createCarShareUsage =
  'npm run admin -- create-car-share --url URL --name N --ops-email E [--ops-password P]';
export const listCarSharesUsage = 'npm run admin -- list-car-shares';

/** The option of every command that works inside one car share. */
export const carShareOption = { 'car-share': { type: 'string' } } as const;

/** The option that feeds each field, for refusals: the car share's, then its first operator's. */
export const createCarShareOptions: OptionNames = {
  baseUrl: '--url',
  name: '--name',
  username: '--ops-email',
  password: '--ops-password',
};

export function createCarShareArgs(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      name: { type: 'string' },
      'ops-email': { type: 'string' },
      'ops-password': { type: 'string' },
    },
  });
  requireOptions(values, ['url', 'name', 'ops-email']);
  return values;
}

export function listCarSharesArgs(args: string[]): void {
  parseArgs({ args, options: {} });
}

/** The first operator as the command prints it: the password only when it was generated. */
export interface FirstOperator {
  Id: string;
  Username: string;
  Password?: string;
}

/** Makes the first operator inside the new car share's scope (the accounts subdomain's work, handed in). */
/** Makes the new car share's first operator (and whatever else it needs before it serves) in its scope. */
export type MakeFirstOperator = (
  em: EntityManager,
  operator: { username: string; password: string | undefined },
  carShare: CarShare,
) => Promise<FirstOperator>;

export async function createCarShareFromCli(
  db: Pick<Database, 'orm'>,
  args: string[],
  firstOperator: MakeFirstOperator,
) {
  const values = createCarShareArgs(args);
  const { carShare, result } = await createCarShare(
    db.orm,
    { baseUrl: values.url, name: values.name },
    (em, carShare) =>
      firstOperator(em, { username: values['ops-email'] ?? '', password: values['ops-password'] }, carShare),
  );
  return {
    Id: carShare.id,
    BaseUrl: carShare.baseUrl,
    Name: carShare.name,
    Status: carShare.status,
    Issuer: carShare.issuer,
    Operator: result,
  };
}

interface Row {
  id: string;
  base_url: string;
  host: string;
  name: string;
  status: CarShareStatus;
  is_default: boolean;
}

/** Every car share, the default first, then in the order they were made; the default's address is PUBLIC_URL. */
async function carShares(orm: Orm, publicUrl: string) {
  const rows = await deploymentSql<Row>(
    orm,
    'select id, base_url, host, name, status, is_default from car_share order by is_default desc, created_date_utc, id',
  );
  return rows.map((r) => ({
    id: r.id,
    baseUrl: r.is_default ? publicUrl : r.base_url,
    host: r.is_default ? hostKey(new URL(publicUrl).host) : r.host,
    name: r.name,
    status: r.status,
    isDefault: r.is_default,
  }));
}

export async function listCarSharesFromCli(db: Pick<Database, 'orm'>, publicUrl: string) {
  const list = await carShares(db.orm, publicUrl);
  return {
    CarShares: list.map((c) => ({ Id: c.id, BaseUrl: c.baseUrl, Name: c.name, Status: c.status })),
  };
}

/** The host a `--car-share` value names when it is no Id: a URL's host, or the value itself as a host. */
function hostOf(ref: string): string {
  try {
    if (ref.includes('://')) return hostKey(new URL(ref).host);
  } catch {}
  return hostKey(ref.split('/')[0] ?? '');
}

/**
 * The car share `--car-share` names (an Id, or a URL or host matched as the edge matches hosts), the default one
 * without it; refused (exit 1) when it names none.
 */
export async function carShareFromCli(
  orm: Orm,
  ref: string | undefined,
  publicUrl: string,
): Promise<Pick<CarShare, 'id' | 'baseUrl' | 'host' | 'name' | 'status' | 'isDefault'>> {
  const list = await carShares(orm, publicUrl);
  const found =
    ref === undefined
      ? list.find((c) => c.isDefault)
      : isUuid(ref)
        ? list.find((c) => c.id === ref.toLowerCase())
        : list.find((c) => c.host === hostOf(ref));
  if (!found)
    throw new DomainError(
      'NotFound',
      ref === undefined
        ? 'There is no default car share: the database was not migrated'
        : `--car-share ${ref} names no car share (give its Id or its BaseUrl)`,
      { field: 'carShare' },
    );
  return found;
}
