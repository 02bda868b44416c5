// Waking every instance's outbox relay (LISTEN carshare_outbox) when events are written: sent by the service in
// the transaction that writes them (CONTRACT §25), so it is heard when they have committed and not otherwise.
import type { EntityManager } from '@mikro-orm/postgresql';
import { notifyInTransaction } from '../db/notify.js';
import { carShareOf } from '../db/scope.js';

export const OUTBOX_CHANNEL = 'carshare_outbox';

/**
 * Once per transaction however many events it writes (PostgreSQL delivers identical notifications once). The
 * payload is the car share whose events they are, so a relay takes them without first asking which car shares
 * have events (src/events/relay.ts).
 */
export const announceOutboxEvents = (em: EntityManager): Promise<void> =>
  notifyInTransaction(em, OUTBOX_CHANNEL, carShareOf(em) ?? '');
