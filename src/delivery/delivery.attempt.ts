// One claimed delivery, from its target to its recorded outcome: the subscription as it is now (cancelled when
// deleted, skipped when paused), one signed attempt (send.ts), its outcome decided (outcome.ts), logged, and
// handed to the recorder that writes outcomes in batches. The worker (delivery.worker.ts) decides when.
import { carShareEm } from '../db/scope.js';
import type { AttemptRecorder } from './attempt.recorder.js';
import { type AttemptRecord, type Claimed, releaseUnsent } from './delivery.store.js';
import type { WorkerOptions } from './delivery.worker.js';
import { decide } from './outcome.js';
import { sendAttempt } from './send.js';
import type { Target } from './target.cache.js';
import type { DeliveryOutcome } from './webhook.metrics.js';

export type DeliverDeps = WorkerOptions & { recorder: AttemptRecorder };

/** `sent` is called once the request is over (its slot is free), before the outcome is written. */
export async function deliverClaimed(
  o: DeliverDeps,
  c: Claimed,
  claimedTarget: Target | undefined,
  sent: () => void,
): Promise<void> {
  const { orm, clock, targets } = o;
  // A context of its own only when this delivery reads or writes alone (rare): most need none.
  const em = () => carShareEm(orm, c.carShareId);
  const changed = () => o.changed?.(c.carShareId);
  const attemptedAt = clock.now();
  // The subscription may have changed while the delivery was queued; the cache has heard of it by now.
  const target = claimedTarget
    ? (targets.cached(c.subscriptionId, attemptedAt) ??
      (await targets.get(em(), [c.subscriptionId], attemptedAt)).get(c.subscriptionId))
    : undefined;
  const count = (outcome: DeliveryOutcome) => o.onOutcome?.(outcome);
  if (!target || target.deleted) {
    await releaseUnsent(em(), c, 'Cancelled', attemptedAt);
    await changed();
    return count('cancelled');
  }
  if (!target.isActive && !c.manual) {
    await releaseUnsent(em(), c, 'Skipped', attemptedAt);
    await changed();
    return count('skipped');
  }
  const result = await sendAttempt(
    o.dispatcher,
    {
      url: target.url,
      deliveryId: c.id,
      subscriptionId: c.subscriptionId,
      event: c.event,
      body: c.body,
      secrets: target.secrets,
      timestamp: attemptedAt,
      userAgent: o.userAgent,
    },
    { timeoutMs: o.timeoutMs, allowPrivate: o.allowPrivate },
  );
  sent();
  const now = clock.now();
  const outcome = decide(result, c, now, o.policy);
  // One line per attempt, joinable with the line of the request that raised the event (eventRequestId).
  o.log.info(
    {
      deliveryId: c.id,
      carShareId: c.carShareId,
      event: c.event,
      eventId: c.eventId,
      eventRequestId: c.eventRequestId,
      requestId: result.requestId,
      attempt: outcome.attemptCount,
      status: outcome.status,
      code: outcome.statusCode,
      error: outcome.error,
      durationMs: result.durationMs,
    },
    'webhook attempt',
  );
  const record: AttemptRecord = {
    claimed: c,
    result,
    outcome,
    trigger: c.manual ? 'Manual' : 'Scheduled',
    url: target.url,
    attemptedAt,
    now,
    failingWindowMs: o.failingWindowMs,
  };
  const mine = await o.recorder.record(record);
  count(
    !mine
      ? 'lease_lost'
      : outcome.success
        ? 'succeeded'
        : outcome.gone
          ? 'gone'
          : outcome.status === 'Pending'
            ? 'retrying'
            : 'failed',
  );
}
