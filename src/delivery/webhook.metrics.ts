// The webhook machinery on /metrics: what this instance's worker made of each delivery it handled, and the queue
// all instances draw from (due now, waiting for a later retry, events not yet fanned out).
import type { Orm } from '../db/orm.js';
import { deploymentSql } from '../db/scope.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Clock } from '../shared/clock.js';

export const deliveryOutcomes = [
  'succeeded',
  'retrying',
  'failed',
  'gone',
  'cancelled',
  'skipped',
  'lease_lost',
] as const;
export type DeliveryOutcome = (typeof deliveryOutcomes)[number];

export type OutcomeCounter = (outcome: DeliveryOutcome) => void;

export function webhookMetrics(
  metrics: Pick<Metrics, 'counter' | 'gauge'>,
  orm: Orm,
  clock: Clock,
): OutcomeCounter {
  const handled = metrics.counter(
    'webhook_deliveries_total',
    'Deliveries handled by this instance, by the outcome of the attempt: succeeded, retrying (failed, another ' +
      'attempt scheduled), failed (no attempt left), gone (410), cancelled or skipped (not sent), lease_lost',
    ['outcome'],
  );
  // Every outcome is exported from the start, so rates and alerts work before the first one happens.
  for (const outcome of deliveryOutcomes) handled.inc({ outcome }, 0);
  // Deployment work (src/db/scope.ts): counts across every car share, as the DATABASE_URL user. Only the totals
  // leave here, on the operator's /metrics, which names no car share (CONTRACT §19); never a car share's rows.
  const count = async (sql: string, params: unknown[] = []): Promise<number> => {
    const [row] = await deploymentSql<{ n: string }>(orm, sql, params);
    return Number(row?.n ?? 0);
  };
  metrics.gauge('webhook_queue_depth', 'Pending webhook deliveries due now, across all instances', () =>
    count(
      `select count(*) as n from "webhook_delivery" where "status" = 'Pending' and "next_attempt_date_utc" <= ?`,
      [clock.now()],
    ),
  );
  metrics.gauge('webhook_queue_scheduled', 'Pending webhook deliveries waiting for a later retry', () =>
    count(
      `select count(*) as n from "webhook_delivery" where "status" = 'Pending' and "next_attempt_date_utc" > ?`,
      [clock.now()],
    ),
  );
  metrics.gauge(
    'outbox_unpublished_events',
    'Committed events not yet fanned out to webhook deliveries and GraphQL subscriptions',
    () => count(`select count(*) as n from "outbox_event" where "published_date_utc" is null`),
  );
  return (outcome) => handled.inc({ outcome });
}
