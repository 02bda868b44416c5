// Webhook tests' support: a harness whose webhooks module has the given target policy, the outbox relay (fan-out)
// and the delivery runtime started against the test database with a fast schedule, and the GraphQL documents.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { inject } from 'vitest';
import { type DeliveryOptions, startDelivery } from '../../src/delivery/delivery.runtime.js';
import type { EventBus } from '../../src/events/bus.js';
import type { EventContext } from '../../src/events/outbox.js';
import { startOutboxRelay } from '../../src/events/relay.js';
import { composeModules } from '../../src/modules.js';
import { systemClock } from '../../src/shared/clock.js';
import { fanOutBatch } from '../../src/webhooks/fanout.js';
import type { Lookup } from '../../src/webhooks/target-guard.js';
import { createHarness, type Harness, type HarnessOptions, useHarness } from '../support/harness.js';
import { scoped, scopedSql } from '../support/scope.js';
import { waitFor } from '../support/wait.js';

export interface WebhookHarnessOptions {
  allowPrivateTargets?: boolean;
  timeoutMs?: number;
  bus?: EventBus;
  lookup?: Lookup;
}

function webhookHarnessOptions(opts: WebhookHarnessOptions): HarnessOptions {
  return {
    // Signatures carry the attempt's time and receivers check it against theirs: the clock starts at now.
    now: new Date().toISOString(),
    modules: composeModules({
      bookingLeadMinutes: 15,
      webhooks: {
        allowPrivateTargets: opts.allowPrivateTargets ?? true,
        timeoutMs: opts.timeoutMs ?? 1000,
        bus: opts.bus,
        lookup: opts.lookup,
      },
    }),
  };
}

export function webhookHarness(opts: WebhookHarnessOptions = {}): Promise<Harness> {
  return createHarness(webhookHarnessOptions(opts));
}

/** `useHarness` with the webhooks module configured as `webhookHarness` does. */
export function useWebhookHarness(opts: WebhookHarnessOptions & { resetEach?: boolean } = {}): Harness {
  const { resetEach, ...rest } = opts;
  return useHarness({ ...webhookHarnessOptions(rest), ...(resetEach === undefined ? {} : { resetEach }) });
}

export interface Runtime {
  /** Looks for events and due deliveries now. */
  wake(): void;
  stop(): Promise<void>;
}

/** What the service starts: the outbox relay (fan-out, then the bus if given) and the delivery worker. */
export async function startRuntime(
  h: Harness,
  overrides: Partial<Omit<DeliveryOptions, 'orm' | 'databaseUrl'>> & { bus?: EventBus } = {},
): Promise<Runtime> {
  const { bus, ...options } = overrides;
  const base = {
    orm: h.orm,
    databaseUrl: inject('databaseUrl'),
    clock: options.clock ?? systemClock,
    log: options.log ?? pino({ level: 'silent' }),
  };
  const delivery = await startDelivery({
    ...base,
    retryScheduleMs: [20, 20, 20],
    timeoutMs: 1000,
    allowPrivateTargets: true,
    pollMs: 50,
    ...options,
  });
  const relay = startOutboxRelay({
    ...base,
    bus,
    take: fanOutBatch,
    onTaken: (carShareId) => delivery.wake(carShareId),
    pollMs: options.pollMs ?? 50,
  });
  return {
    wake() {
      relay.wake();
      delivery.wake();
    },
    async stop() {
      await relay.stop();
      await delivery.stop();
    },
  };
}

export const SUB_FIELDS = `id name event config { url contentType } isActive disabledReason consecutiveFailures
  lastSuccessDateUtc lastFailureDateUtc createdById createdDateUtc lastModifiedDateUtc secret`;
export const CREATE = `mutation($input: CreateWebhookSubscriptionsInput!) {
  createWebhookSubscriptions(input: $input) { ${SUB_FIELDS} } }`;
export const SUBSCRIPTION = `query($id: UUID!) { webhookSubscription(id: $id) { ${SUB_FIELDS} } }`;
export const SUBSCRIPTIONS = `query($event: String, $isActive: Boolean, $sort: String) {
  webhookSubscriptions(event: $event, isActive: $isActive, sort: $sort) { total sort { by direction } nodes { ${SUB_FIELDS} } } }`;
export const UPDATE = `mutation($id: UUID!, $input: UpdateWebhookSubscriptionInput!) {
  updateWebhookSubscription(id: $id, input: $input) { ${SUB_FIELDS} } }`;
export const DELETE = 'mutation($id: UUID!) { deleteWebhookSubscription(id: $id) { id } }';
export const ROTATE = `mutation($id: UUID!, $input: RotateWebhookSubscriptionSecretInput) {
  rotateWebhookSubscriptionSecret(id: $id, input: $input) { ${SUB_FIELDS} } }`;
export const DELIVERY_FIELDS = `id subscriptionId event status nextAttemptDateUtc payload createdDateUtc
  attempts { attemptedDateUtc statusCode error durationMs trigger requestId responseBody }`;
export const TEST = `mutation($id: UUID!) { testWebhookSubscription(id: $id) { ${DELIVERY_FIELDS} } }`;
export const DELIVERY = `query($id: String!) { webhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`;
export const DELIVERIES = `query($subscriptionId: UUID, $status: WebhookDeliveryStatus, $event: String) {
  webhookDeliveries(subscriptionId: $subscriptionId, status: $status, event: $event) {
    total nodes { ${DELIVERY_FIELDS} } } }`;
export const REDELIVER = `mutation($id: String!) { redeliverWebhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`;

export type S = Record<string, any>;

/** Raw rows, past every visibility rule. */
export function rows<T = S>(h: Harness, sql: string, params: unknown[] = []): Promise<T[]> {
  return scopedSql<T>(h.orm, sql, params);
}

/**
 * Until every committed event has been fanned out and no delivery is pending or claimed: from then on no request
 * reaches a receiver that has not already arrived (a receiver records a request before it answers, and an
 * attempt is recorded after the answer). The signal that "nothing more was sent" can be asserted on.
 */
export async function quiet(h: Harness): Promise<void> {
  await waitFor(
    async () => {
      const [r] = await rows<{ busy: number }>(
        h,
        `select (select count(*) from outbox_event where published_date_utc is null)
          + (select count(*) from webhook_delivery where status = 'Pending' or locked_by is not null) as busy`,
      );
      return Number(r?.busy) === 0;
    },
    { what: 'webhook delivery to come to rest' },
  );
}

const markerIds = new Set<string>();
/** Whether a live event is one of `mark`'s markers. */
export const isMarker = (e: { payload?: Record<string, unknown> }): boolean =>
  markerIds.has(String(e.payload?.Id));

/**
 * Records marker events (`record` writes one, with the Id it is given) until every inbox of live events holds one
 * of them. graphql-ws acknowledges no subscription, so this is how a test knows its listeners are live. And as an
 * instance publishes events in commit order, a marker received also means every event recorded before it and
 * published by the same instance has arrived: what a listener has not got by then, it never will.
 */
export async function mark(
  h: Harness,
  inboxes: readonly (readonly { payload?: Record<string, unknown> }[])[],
  record: (ctx: EventContext, id: string) => void,
): Promise<void> {
  const mine = new Set<string>();
  const reached = () => inboxes.every((inbox) => inbox.some((e) => mine.has(String(e.payload?.Id))));
  await waitFor(
    async () => {
      const id = randomUUID();
      markerIds.add(id);
      mine.add(id);
      await scoped(h.orm).transactional(async (em) => record({ em, clock: systemClock }, id));
      // A marker published before a listener was live never reaches it: after a while, record another.
      return waitFor(reached, { timeoutMs: 1000 }).catch(() => false);
    },
    { what: 'every listener to receive a marker' },
  );
}
