// `npm run admin -- create-car-share | list-car-shares`, and the `--car-share ID|URL` every other admin command
// takes (CONTRACT §22): the car share a command works in, found as the edge finds one (by Id, or by host).
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../db/database.js';
import type { Orm } from '../db/orm.js';
import { type OptionNames, requireOptions } from '../shared/command-line.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { createCarShare } from './car-share.commands.js';
import { type CarShare, hostKey } from './car-share.js';
import { reactivateCarShare, suspendCarShare } from './car-share.lifecycle.js';
import { loadCarShares } from './registry.js';

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

export async function listCarSharesFromCli(db: Pick<Database, 'orm'>, publicUrl: string) {
  const list = await loadCarShares(db.orm, publicUrl);
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
  const list = await loadCarShares(orm, publicUrl);
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

export const suspendCarShareUsage = 'npm run admin -- suspend-car-share --car-share ID|URL [--reason R]';
export const reactivateCarShareUsage = 'npm run admin -- reactivate-car-share --car-share ID|URL';
export const lifecycleOptions: OptionNames = { carShare: '--car-share', reason: '--reason' };

export function suspendCarShareArgs(args: string[]) {
  const { values } = parseArgs({ args, options: { ...carShareOption, reason: { type: 'string' } } });
  requireOptions(values, ['car-share']);
  return values;
}

export function reactivateCarShareArgs(args: string[]) {
  const { values } = parseArgs({ args, options: carShareOption });
  requireOptions(values, ['car-share']);
  return values;
}

/** The car share after a change of state, as the command prints it. */
const stateOf = (c: CarShare) => ({
  Id: c.id,
  BaseUrl: c.baseUrl,
  Name: c.name,
  Status: c.status,
  SuspendedReason: c.suspendedReason ?? null,
  SuspendedDateUtc: c.suspendedDateUtc?.toISOString() ?? null,
});

/**
 * A refused change of state names the option that chose the car share (§22: exit 1, nothing changed): the default
 * car share, or one already in the state asked for.
 */
async function onCarShare(ref: string, change: () => Promise<CarShare>) {
  try {
    return stateOf(await change());
  } catch (err) {
    if (err instanceof DomainError && (err.code === 'InvalidStateTransition' || err.code === 'Conflict'))
      throw new DomainError(err.code, `--car-share ${ref}: ${err.message}`, {
        field: 'carShare',
        ...(err.details.meta ? { meta: err.details.meta } : {}),
      });
    throw err;
  }
}

export async function suspendCarShareFromCli(db: Pick<Database, 'orm'>, args: string[], publicUrl: string) {
  const values = suspendCarShareArgs(args);
  const ref = values['car-share'] ?? '';
  const { id } = await carShareFromCli(db.orm, ref, publicUrl);
  return onCarShare(ref, () =>
    suspendCarShare(db.orm, id, values.reason ?? null, { actorType: 'Cli' }, new Date()),
  );
}

export async function reactivateCarShareFromCli(
  db: Pick<Database, 'orm'>,
  args: string[],
  publicUrl: string,
) {
  const ref = reactivateCarShareArgs(args)['car-share'] ?? '';
  const { id } = await carShareFromCli(db.orm, ref, publicUrl);
  return onCarShare(ref, () => reactivateCarShare(db.orm, id, { actorType: 'Cli' }, new Date()));
}
