// Committed events for live listeners (GraphQL subscriptions): in-process, or through Redis when REDIS_URL is
// set so every instance hears every event. Events are published once, after the outbox row has committed. A
// listener hears one car share's events only (CONTRACT §20): each car share has its own channel.
import { EventEmitter, on } from 'node:events';
import type { Redis } from 'ioredis';
import { globLiteral, type RedisKeys } from '../http/redis-keys.js';
import type { Logger } from '../shared/log.js';

export interface BusEvent {
  id: string;
  /** The car share whose outbox row it is: only that car share's listeners hear it. */
  carShareId: string;
  name: string;
  /** Exactly the webhook body. */
  payload: Record<string, unknown>;
  /** Users the event is about: who may see it besides ops and client applications. */
  audienceUserIds: string[];
  occurredDateUtc: string;
}

export interface EventBus {
  publish(e: BusEvent): Promise<void>;
  /** One car share's events published from now on; `return()` on the iterator stops listening. */
  subscribe(carShareId: string): AsyncIterableIterator<BusEvent>;
  close(): Promise<void>;
}

/** The emitter's event for one car share's events. */
const topic = (carShareId: string): string => `event:${carShareId}`;

function emitterBus(): {
  emit: (e: BusEvent) => void;
  emitter: EventEmitter;
  subscribe: (carShareId: string) => AsyncIterableIterator<BusEvent>;
} {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const subscribe = (carShareId: string): AsyncIterableIterator<BusEvent> => {
    const inner = on(emitter, topic(carShareId), { close: ['close'] });
    const it: AsyncIterableIterator<BusEvent> = {
      next: async () => {
        const r = await inner.next();
        return r.done
          ? { done: true, value: undefined }
          : { done: false, value: (r.value as BusEvent[])[0]! };
      },
      return: async () => {
        await inner.return?.();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => it,
    };
    return it;
  };
  return { emit: (e) => emitter.emit(topic(e.carShareId), e), emitter, subscribe };
}

export function localBus(): EventBus {
  const { emit, emitter, subscribe } = emitterBus();
  return {
    async publish(e) {
      emit(e);
    },
    subscribe,
    async close() {
      emitter.emit('close');
    },
  };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Events travel on one channel per car share, `<REDIS_KEY_PREFIX><carShareId>:events` (src/http/redis-keys.ts), so
 * deployments (and test runs) with other prefixes sharing one Redis never hear them; instances of one deployment
 * share the prefix and hear every car share's events through one pattern subscription, each handed to that car
 * share's listeners only.
 */
export async function redisBus(url: string, keys: RedisKeys, log: Logger): Promise<EventBus> {
  const ours = new RegExp(`^${escapeRegExp(keys.prefix)}[0-9a-f-]{36}:events$`);
  const channelOf = (carShareId: string): string => keys.carShare(carShareId, 'events');
  const { emit, emitter, subscribe } = emitterBus();
  // Publishing fails fast while Redis is down (live listeners miss those events; webhooks do not depend on it).
  // Loaded only when Redis is configured: an instance without it never holds the client's code (~2 MB of heap).
  const { Redis: Client } = await import('ioredis');
  const pub: Redis = new Client(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const sub: Redis = new Client(url, { lazyConnect: true });
  for (const c of [pub, sub]) c.on('error', (err) => log.warn({ err }, 'redis event bus connection error'));
  await Promise.all([pub.connect(), sub.connect()]);
  const heard = (ch: string, message: string) => {
    try {
      const e = JSON.parse(message) as BusEvent;
      // Only a car share's own channel carries its events.
      if (typeof e.carShareId === 'string' && ch === channelOf(e.carShareId)) emit(e);
    } catch (err) {
      log.warn({ err }, 'unreadable message on the event bus');
    }
  };
  // The pattern may match another deployment's channels when its prefix begins with ours: the channel's exact
  // shape (our prefix, then an Id) is checked, and that it is the channel of the event's own car share.
  sub.on('pmessage', (_pattern: string, ch: string, message: string) => {
    if (ours.test(ch)) heard(ch, message);
  });
  await sub.psubscribe(`${globLiteral(keys.prefix)}*:events`);
  return {
    async publish(e) {
      await pub.publish(channelOf(e.carShareId), JSON.stringify(e));
    },
    subscribe,
    async close() {
      emitter.emit('close');
      sub.disconnect();
      pub.disconnect();
    },
  };
}
