// `npm run admin -- delete-car-share --car-share ID|URL --confirm HOST` (CONTRACT §22): deletes a suspended car share
// once the operator has typed its host, then purges its rows before returning (no service need be running).
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../db/database.js';
import { type OptionNames, requireOptions } from '../shared/command-line.js';
import { DomainError, isDomainError } from '../shared/errors.js';
import { carShareFromCli } from './car-share.cli.js';
import { deleteCarShare, purgeDeletedCarShares } from './car-share.deletion.js';
import { hostKey } from './car-share.js';

export const deleteCarShareUsage = 'npm run admin -- delete-car-share --car-share ID|URL --confirm HOST';

export const deleteCarShareOptions: OptionNames = { carShare: '--car-share', confirm: '--confirm' };

export function deleteCarShareArgs(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { 'car-share': { type: 'string' }, confirm: { type: 'string' } },
  });
  requireOptions(values, ['car-share', 'confirm']);
  return values;
}

export async function deleteCarShareFromCli(
  db: Pick<Database, 'orm'>,
  args: string[],
  publicUrl: string,
  now: Date,
  /** Work in the deletion's transaction, told the car share's Id (the platform's own audit entry). */
  alongside?: (em: EntityManager, carShareId: string) => Promise<void>,
) {
  const values = deleteCarShareArgs(args);
  const carShare = await carShareFromCli(db.orm, values['car-share'], publicUrl);
  // The host typed, compared as requests are matched: any case, no port, no trailing dot.
  if (hostKey(values.confirm ?? '') !== carShare.host)
    throw new DomainError('InvalidValue', `--confirm must be the car share's host, ${carShare.host}`, {
      field: 'confirm',
      errors: [{ code: 'InvalidValue', field: 'confirm', message: `--confirm must be ${carShare.host}` }],
    });
  try {
    await deleteCarShare(db.orm, carShare.id, { actorType: 'Cli' }, now, (em) =>
      alongside ? alongside(em, carShare.id) : Promise.resolve(),
    );
  } catch (err) {
    // A refused state change names the car share it was asked of.
    if (isDomainError(err) && !err.details.field) err.details.field = 'carShare';
    throw err;
  }
  await purgeDeletedCarShares(db.orm);
  return {
    Id: carShare.id,
    BaseUrl: carShare.baseUrl,
    Host: carShare.host,
    Name: carShare.name,
    Deleted: true,
  };
}
