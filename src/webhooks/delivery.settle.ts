// A subscription that stops settles its pending deliveries: disabled (by its owner, a 410 or a failing streak)
// they become Skipped, deleted they become Cancelled. The subscription commands and the delivery engine both do it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../db/rows.js';
import { scopeOf } from './webhook.scope.js';

export async function settlePending(
  em: EntityManager,
  subscriptionId: string,
  status: 'Skipped' | 'Cancelled',
  now: Date,
): Promise<void> {
  await runSql(
    em,
    `update "webhook_delivery" set "status" = ?, "next_attempt_date_utc" = null, "manual" = false,
      "last_modified_date_utc" = ? where "car_share_id" = ? and "subscription_id" = ? and "status" = 'Pending'
      returning "id"`,
    [status, now, scopeOf(em), subscriptionId],
  );
}
