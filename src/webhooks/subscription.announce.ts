// Webhook subscription changes announced to every instance (LISTEN carshare_webhook_subscription), so the delivery
// workers' cache of targets drops an entry the moment it changes: sent by the service in the transaction of the
// change (CONTRACT §25), its payload the subscription's id.
import type { EntityManager } from '@mikro-orm/postgresql';
import { notifyInTransaction } from '../db/notify.js';

export const SUBSCRIPTION_CHANNEL = 'carshare_webhook_subscription';

/** The properties the target cache holds; health counters are not cached and change on every attempt. */
export const ANNOUNCED_PROPERTIES = [
  'url',
  'secret',
  'previousSecret',
  'previousSecretExpiresDateUtc',
  'isActive',
  'deletedDateUtc',
] as const;

/** The subscription's URL, secrets, status or deletion changed, or its row was deleted. */
export const announceSubscriptionChanged = (em: EntityManager, id: string): Promise<void> =>
  notifyInTransaction(em, SUBSCRIPTION_CHANNEL, id.toLowerCase());
