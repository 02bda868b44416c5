// The business verbs of webhook subscriptions: create (one per event), update, delete (effective at once),
// and rotate the secret (the old one keeps signing for 24 h).

import { runSql } from '../db/rows.js';
import { DomainError, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { Check } from '../shared/validation.js';
import { settlePending } from './delivery.settle.js';
import { encryptSecret, generateSecret, loadDataKey, parseSecret } from './secret.js';
import { WebhookSubscription } from './subscription.entity.js';
import {
  CONTENT_TYPE,
  type CreateSubscriptionsInput,
  checkContentType,
  checkName,
  checkUrl,
  parseCreate,
  type UpdateSubscriptionInput,
  urlOf,
} from './subscription.input.js';
import {
  leaseMsFor,
  policyOf,
  type SubscriptionView,
  subscriptionView,
  type WebhookContext,
  type WebhookSettings,
} from './webhook.context.js';
import { canManage, receivesAllEvents } from './webhook.rules.js';

const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

async function assertUnique(
  ctx: WebhookContext,
  createdById: string,
  event: string,
  url: string,
  except?: string,
) {
  const existing = await ctx.em.findOne(WebhookSubscription, {
    createdById,
    event,
    url,
    deletedDateUtc: null,
    ...(except ? { id: { $ne: except } } : {}),
  });
  if (existing)
    throw new DomainError('AlreadyExists', `You already subscribe ${url} to ${event}`, {
      meta: { Event: event, Id: existing.id },
    });
}

export async function createWebhookSubscriptions(
  ctx: WebhookContext,
  settings: WebhookSettings,
  input: CreateSubscriptionsInput,
): Promise<SubscriptionView[]> {
  const { name, events, url, secret } = await parseCreate(input, policyOf(settings));
  const createdById = ctx.actor.id!;
  const key = await loadDataKey(ctx.em);
  const now = ctx.clock.now();
  const created: SubscriptionView[] = [];
  for (const event of events) {
    await assertUnique(ctx, createdById, event, url);
    const id = newId();
    const plain = secret ?? generateSecret();
    const s = ctx.em.create(WebhookSubscription, {
      id,
      name,
      event,
      url,
      contentType: CONTENT_TYPE,
      secret: encryptSecret(key, plain, id),
      previousSecret: null,
      previousSecretExpiresDateUtc: null,
      isActive: true,
      disabledReason: null,
      consecutiveFailures: 0,
      failingSinceDateUtc: null,
      lastSuccessDateUtc: null,
      lastFailureDateUtc: null,
      receivesAll: receivesAllEvents(ctx.actor),
      createdById,
      createdDateUtc: now,
      lastModifiedDateUtc: now,
      deletedDateUtc: null,
    });
    ctx.em.persist(s);
    created.push(subscriptionView(s, plain));
  }
  return created;
}

export async function loadManaged(ctx: WebhookContext, id: string): Promise<WebhookSubscription> {
  const s = await ctx.em.findOne(WebhookSubscription, { id });
  if (!s || !canManage(ctx.actor, s)) throw notFound('WebhookSubscription');
  return s;
}

export async function updateWebhookSubscription(
  ctx: WebhookContext,
  settings: WebhookSettings,
  id: string,
  input: UpdateSubscriptionInput,
): Promise<SubscriptionView> {
  const s = await loadManaged(ctx, id);
  const c = new Check();
  const name = input.name !== undefined ? checkName(c, input.name) : undefined;
  const u = urlOf(input);
  const url = u.value !== undefined ? await checkUrl(c, u.field, u.value, policyOf(settings)) : undefined;
  if (input.config?.secret != null)
    c.add('InvalidValue', 'config.secret', 'Config.Secret may not be updated; rotate the secret instead');
  checkContentType(c, input.config?.contentType);
  if (input.isActive === null) c.add('NotEmpty', 'isActive', 'IsActive must be true or false');
  c.throwIfAny();
  const now = ctx.clock.now();
  if (name !== undefined) s.name = name;
  if (url !== undefined && url !== s.url) {
    await assertUnique(ctx, s.createdById, s.event, url, s.id);
    s.url = url;
  }
  if (input.isActive === false && s.isActive) {
    Object.assign(s, { isActive: false, disabledReason: 'Manual' });
    await settlePending(ctx.em, s.id, 'Skipped', now);
  } else if (input.isActive === true && !s.isActive) {
    // Re-activating clears the failure state, so the 5-day clock starts again.
    Object.assign(s, {
      isActive: true,
      disabledReason: null,
      consecutiveFailures: 0,
      failingSinceDateUtc: null,
    });
  }
  s.lastModifiedDateUtc = now;
  return subscriptionView(s);
}

export async function deleteWebhookSubscription(
  ctx: WebhookContext,
  settings: WebhookSettings,
  id: string,
): Promise<{ id: string }> {
  const s = await loadManaged(ctx, id);
  const now = ctx.clock.now();
  Object.assign(s, { deletedDateUtc: now, lastModifiedDateUtc: now, secret: null, previousSecret: null });
  await settlePending(ctx.em, s.id, 'Cancelled', now);
  // The 204 must mean nothing more reaches the receiver: wait out any attempt already in flight.
  ctx.afterCommit.push(() => waitForInFlight(ctx, s.id, leaseMsFor(settings.timeoutMs)));
  return { id: s.id };
}

/** Polls until no claim on the subscription's deliveries is live; a lease bounds how long that can be. */
async function waitForInFlight(ctx: WebhookContext, subscriptionId: string, leaseMs: number): Promise<void> {
  const giveUp = performance.now() + leaseMs;
  // After the commit: a fork without the committed transaction, each look a short transaction of the car share's
  // scope (a fork keeps it).
  const em = ctx.em.fork();
  while (performance.now() < giveUp) {
    const rows = await runSql<{ until: Date }>(
      em,
      `select "locked_until_utc" as "until" from "webhook_delivery"
        where "car_share_id" = ? and "subscription_id" = ? and "locked_by" is not null and "locked_until_utc" > ?
        limit 1`,
      [ctx.carShare.id, subscriptionId, ctx.clock.now()],
    );
    if (rows.length === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function rotateWebhookSubscriptionSecret(
  ctx: WebhookContext,
  id: string,
  input: { secret?: string | null } | null | undefined,
): Promise<SubscriptionView> {
  const s = await loadManaged(ctx, id);
  let plain = generateSecret();
  if (input?.secret != null) {
    const parsed = parseSecret(input.secret);
    if (!parsed)
      new Check()
        .add(
          'InvalidValue',
          'secret',
          'Secret must be base64 of 24 to 64 random bytes, with or without whsec_',
        )
        .throwIfAny();
    plain = parsed!;
  }
  const now = ctx.clock.now();
  Object.assign(s, {
    previousSecret: s.secret,
    previousSecretExpiresDateUtc: new Date(now.getTime() + ROTATION_OVERLAP_MS),
    secret: encryptSecret(await loadDataKey(ctx.em), plain, s.id),
    lastModifiedDateUtc: now,
  });
  return subscriptionView(s, plain);
}
