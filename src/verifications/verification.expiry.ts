// The verification expiry sweep, across car shares (CONTRACT §20, §24 rule 5): which car shares have Verified
// records past their expiry is one read across car shares (their ids only); each car share's records then expire in
// its own scope, a batch per car share per round, so one car share's backlog holds another's back by one batch.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { carShareEm, deploymentSql } from '../db/scope.js';
import type { Clock } from '../shared/clock.js';
import { EXPIRY_BATCH, expireVerifications } from './verification.commands.js';

/** The car shares with Verified records whose evidence expired: a read across car shares of their ids only. */
export async function carSharesWithExpiredVerifications(orm: Orm, now: Date): Promise<string[]> {
  const rows = await deploymentSql<{ car_share_id: string }>(
    orm,
    `select distinct car_share_id from verification where status = 'Verified' and expires_date_utc <= ?`,
    [now],
  );
  return rows.map((r) => r.car_share_id);
}

/**
 * Expires every due record, one transaction per batch in its car share's scope. `changed` is told after each batch
 * that expired some has committed (that car share's cached answers showing them go stale), and awaited.
 */
export async function sweepVerificationExpiry(
  orm: Orm,
  clock: Clock,
  changed: (carShareId: string) => Promise<void> = async () => undefined,
): Promise<number> {
  let total = 0;
  let round = await carSharesWithExpiredVerifications(orm, clock.now());
  while (round.length > 0) {
    const next: string[] = [];
    for (const carShareId of round) {
      const n = await carShareEm(orm, carShareId).transactional((em) =>
        expireVerifications({ em: em as EntityManager, clock }),
      );
      total += n;
      if (n > 0) await changed(carShareId);
      if (n >= EXPIRY_BATCH) next.push(carShareId);
    }
    round = next;
  }
  return total;
}
