// Bookings' answer to the accounts subdomain's Counterparties port (src/accounts/counterparties.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Counterparties } from '../accounts/counterparties.js';
import { carShareIdOf } from '../db/car-share-condition.js';
import { runSql } from '../db/rows.js';
import { occupyingStates, sqlStates } from './car-booking.entity.js';

/** Owner and borrower of an Approved or InUse booking are each other's counterparty (CONTRACT §5). */
export const bookingCounterparties: Counterparties = {
  async arePartners(em: EntityManager, pairs) {
    if (pairs.length === 0) return [];
    const rows = await runSql<{ i: number; partners: boolean }>(
      em,
      `select v.i, exists (
         select 1 from car_booking b
          where b.car_share_id = ? and b.state in (${sqlStates(occupyingStates)})
            and ((b.borrower_id = v.viewer and b.owner_id = v.subject) or (b.owner_id = v.viewer and b.borrower_id = v.subject))
       ) as partners
       from jsonb_to_recordset(?::jsonb) as v(i int, viewer uuid, subject uuid)`,
      // One JSON parameter: array parameters would be expanded into lists by the query layer.
      [
        carShareIdOf(em),
        JSON.stringify(pairs.map((p, i) => ({ i: i + 1, viewer: p.viewerId, subject: p.subjectId }))),
      ],
    );
    const byIndex = new Map(rows.map((r) => [Number(r.i), r.partners]));
    return pairs.map((_, i) => byIndex.get(i + 1) === true);
  },
};
