// Committed events for live listeners (GraphQL subscriptions): in-process, or through Redis when REDIS_URL is
// set so every instance hears every event. Events are published once, after the outbox row has committed.
import { EventEmitter, on } from 'node:events';
import type { Redis } from 'ioredis';
import { globLiteral, type RedisKeys } from '../http/redis-keys.js';
import type { Logger } from '../shared/log.js';

export interface BusEvent {
  id: string;
  name: string;
  /** Exactly the webhook body. */
  payload: Record<string, unknown>;
  /** Users the event is about: who may see it besides ops and client applications. */
  audienceUserIds: string[];
  occurredDateUtc: string;
}

export interface EventBus {
  publish(e: BusEvent): Promise<void>;
  /** Events published from now on; `return()` on the iterator stops listening. */
  subscribe(): AsyncIterableIterator<BusEvent>;
  close(): Promise<void>;
}

function emitterBus(): { emitter: EventEmitter; subscribe: () => AsyncIterableIterator<BusEvent> } {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const subscribe = (): AsyncIterableIterator<BusEvent> => {
    const inner = on(emitter, 'event', { close: ['close'] });
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
  return { emitter, subscribe };
}

export function localBus(): EventBus {
  const { emitter, subscribe } = emitterBus();
  return {
    async publish(e) {
      emitter.emit('event', e);
    },
    subscribe,
    async close() {
      emitter.emit('close');
    },
  };
}

/** The car share an event belongs to (CONTRACT §20: every payload names it as `CarShareId`). */
function carShareIdOf(e: BusEvent): string | undefined {
  const id = (e as { carShareId?: unknown }).carShareId ?? e.payload.CarShareId;
  return typeof id === 'string' ? id : undefined;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Events travel on one channel per car share, `<REDIS_KEY_PREFIX><carShareId>:events` (src/http/redis-keys.ts), so
 * deployments (and test runs) with other prefixes sharing one Redis never hear them; instances of one deployment
 * share the prefix and hear every car share's events through one pattern subscription.
 */
export async function redisBus(url: string, keys: RedisKeys, log: Logger): Promise<EventBus> {
  // An event that names no car share (none should) goes on the deployment's own channel.
  const deploymentChannel = keys.deployment('events');
  const ours = new RegExp(`^${escapeRegExp(keys.prefix)}[0-9a-f-]{36}:events$`);
  const channelOf = (e: BusEvent): string => {
    const id = carShareIdOf(e);
    return id ? keys.carShare(id, 'events') : deploymentChannel;
  };
  const { emitter, subscribe } = emitterBus();
  // Publishing fails fast while Redis is down (live listeners miss those events; webhooks do not depend on it).
  // Loaded only when Redis is configured: an instance without it never holds the client's code (~2 MB of heap).
  const { Redis: Client } = await import('ioredis');
  const pub: Redis = new Client(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const sub: Redis = new Client(url, { lazyConnect: true });
  for (const c of [pub, sub]) c.on('error', (err) => log.warn({ err }, 'redis event bus connection error'));
  await Promise.all([pub.connect(), sub.connect()]);
  const heard = (message: string) => {
    try {
      emitter.emit('event', JSON.parse(message) as BusEvent);
    } catch (err) {
      log.warn({ err }, 'unreadable message on the event bus');
    }
  };
  sub.on('message', (ch: string, message: string) => {
    if (ch === deploymentChannel) heard(message);
  });
  // The pattern may match another deployment's channels when its prefix begins with ours: the channel's exact
  // shape (our prefix, then an Id) is checked.
  sub.on('pmessage', (_pattern: string, ch: string, message: string) => {
    if (ours.test(ch)) heard(message);
  });
  await sub.subscribe(deploymentChannel);
  await sub.psubscribe(`${globLiteral(keys.prefix)}*:events`);
  return {
    async publish(e) {
      await pub.publish(channelOf(e), JSON.stringify(e));
    },
    subscribe,
    async close() {
      emitter.emit('close');
      sub.disconnect();
      pub.disconnect();
    },
  };
}
