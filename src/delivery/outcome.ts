// What an attempt's result means for its delivery (CONTRACT §8): 2xx succeeds, 410 disables, a blocked target
// fails at once, anything else is retried on the schedule with ±20 % jitter and Retry-After honoured.
import type { DeliveryStatus } from '../webhooks/delivery.entity.js';
import type { AttemptResult } from './send.js';

export const RETRY_AFTER_CAP_MS = 24 * 3600 * 1000;
const JITTER = 0.2;

export interface RetryPolicy {
  /** Delays between attempts: one first attempt plus one per step. */
  retryScheduleMs: readonly number[];
  /** Uniform in [0, 1); injectable so tests can pin the jitter. */
  random: () => number;
}

export interface Outcome {
  status: DeliveryStatus;
  nextAttemptDateUtc: Date | null;
  attemptCount: number;
  success: boolean;
  /** 410 Gone: the receiver asked to be unsubscribed. */
  gone: boolean;
  statusCode: number | null;
  error: string | null;
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, RETRY_AFTER_CAP_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), RETRY_AFTER_CAP_MS);
}

export function jittered(ms: number, random: () => number): number {
  return Math.round(ms * (1 + (random() * 2 - 1) * JITTER));
}

function describe(r: AttemptResult): { statusCode: number | null; error: string | null } {
  if (r.kind === 'error') return { statusCode: null, error: r.error };
  const s = r.statusCode;
  if (s >= 200 && s < 300) return { statusCode: s, error: null };
  if (s === 410) return { statusCode: s, error: 'Gone: the subscription has been disabled' };
  if (s >= 300 && s < 400) return { statusCode: s, error: `HTTP ${s}: redirects are not followed` };
  return { statusCode: s, error: `HTTP ${s}` };
}

export function decide(
  r: AttemptResult,
  d: { attemptCount: number; manual: boolean },
  now: Date,
  policy: RetryPolicy,
): Outcome {
  const { statusCode, error } = describe(r);
  const attemptCount = d.manual ? d.attemptCount : d.attemptCount + 1;
  const base = { attemptCount, statusCode, error, gone: false, success: false, nextAttemptDateUtc: null };
  if (r.kind === 'response' && r.statusCode >= 200 && r.statusCode < 300)
    return { ...base, status: 'Succeeded', success: true };
  if (r.kind === 'response' && r.statusCode === 410) return { ...base, status: 'Failed', gone: true };
  // A redelivery is one more attempt: its failure does not start a new schedule.
  if (d.manual || (r.kind === 'error' && r.blocked)) return { ...base, status: 'Failed' };
  const step = policy.retryScheduleMs[attemptCount - 1];
  if (step === undefined) return { ...base, status: 'Failed' };
  let delay = jittered(step, policy.random);
  if (r.kind === 'response' && (r.statusCode === 429 || r.statusCode === 503)) {
    const retryAfter = parseRetryAfter(r.retryAfter, now);
    if (retryAfter !== null) delay = Math.max(delay, retryAfter);
  }
  return { ...base, status: 'Pending', nextAttemptDateUtc: new Date(now.getTime() + delay) };
}
