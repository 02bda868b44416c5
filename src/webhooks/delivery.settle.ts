// A subscription that stops settles its pending deliveries: disabled (by its owner, a 410 or a failing streak)
// they become Skipped, deleted they become Cancelled. The subscription commands and the delivery engine both do it.
import type { EntityManager } from '@mikro-orm/postgresql';

export async function settlePending(
  em: EntityManager,
  subscriptionId: string,
  status: 'Skipped' | 'Cancelled',
  now: Date,
): Promise<void> {
  await em.getConnection().execute(
    `update "webhook_delivery" set "status" = ?, "next_attempt_date_utc" = null, "manual" = false,
      "last_modified_date_utc" = ? where "subscription_id" = ? and "status" = 'Pending' returning "id"`,
    [status, now, subscriptionId],
    'all',
    em.getTransactionContext(),
  );
}
