// A subscription's health after a batch of attempts, folded in their order into one change per subscription:
// the same counters and dates as writing the attempts one by one.
export interface HealthInput {
  subscriptionId: string;
  success: boolean;
  attemptedAt: Date;
  now: Date;
}

export interface HealthChange {
  id: string;
  /** A success happened: the counter and the failing streak start again from it. */
  reset: boolean;
  /** Failures after the last success. */
  failures: number;
  /** When the first failure after the last success was attempted (the failing streak's start). */
  failingSince: string | null;
  lastSuccess: string | null;
  lastFailure: string | null;
}

export function foldHealth(inputs: readonly HealthInput[]): HealthChange[] {
  const by = new Map<string, HealthChange>();
  const ordered = [...inputs].sort((a, b) => a.attemptedAt.getTime() - b.attemptedAt.getTime());
  for (const i of ordered) {
    let h = by.get(i.subscriptionId);
    if (!h) {
      h = {
        id: i.subscriptionId,
        reset: false,
        failures: 0,
        failingSince: null,
        lastSuccess: null,
        lastFailure: null,
      };
      by.set(i.subscriptionId, h);
    }
    if (i.success) {
      h.reset = true;
      h.failures = 0;
      h.failingSince = null;
      h.lastSuccess = i.now.toISOString();
    } else {
      if (h.failures === 0) h.failingSince = i.attemptedAt.toISOString();
      h.failures += 1;
      h.lastFailure = i.now.toISOString();
    }
  }
  return [...by.values()];
}

/** The new health of subscription `s` from a change `h` (the columns of HealthChange). */
export const HEALTH_SET = `"consecutive_failures" = case when h."reset" then 0 else s."consecutive_failures" end + h."failures",
    "failing_since_date_utc" = case when h."failures" = 0 then
        case when h."reset" then null else s."failing_since_date_utc" end
      when h."reset" then h."failingSince"
      else coalesce(s."failing_since_date_utc", h."failingSince") end,
    "last_success_date_utc" = coalesce(h."lastSuccess", s."last_success_date_utc"),
    "last_failure_date_utc" = coalesce(h."lastFailure", s."last_failure_date_utc")`;

/**
 * One statement for the batch (parameters: the changes as JSON, the car share's id); answers each subscription's
 * failing streak start and whether it is active.
 */
export const HEALTH_SQL = `update "webhook_subscription" s set ${HEALTH_SET}
  from jsonb_to_recordset(?::jsonb) as h("id" uuid, "reset" boolean, "failures" int, "failingSince" timestamptz,
    "lastSuccess" timestamptz, "lastFailure" timestamptz)
  where s."car_share_id" = ? and s."id" = h."id"
  returning s."id", s."failing_since_date_utc", s."is_active"`;
