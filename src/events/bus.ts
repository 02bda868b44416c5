// Committed events for live listeners (GraphQL subscriptions): in-process, or through Redis when REDIS_URL is
// set so every instance hears every event. Events are published once, after the outbox row has committed.
import { EventEmitter, on } from 'node:events';
import type { Redis } from 'ioredis';
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

/** `namespace` keeps deployments (and test runs) that share one Redis apart: instances of one share it. */
export async function redisBus(url: string, namespace: string, log: Logger): Promise<EventBus> {
  const channel = `carshare:events:${namespace}`;
  const { emitter, subscribe } = emitterBus();
  // Publishing fails fast while Redis is down (live listeners miss those events; webhooks do not depend on it).
  // Loaded only when Redis is configured: an instance without it never holds the client's code (~2 MB of heap).
  const { Redis: Client } = await import('ioredis');
  const pub: Redis = new Client(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const sub: Redis = new Client(url, { lazyConnect: true });
  for (const c of [pub, sub]) c.on('error', (err) => log.warn({ err }, 'redis event bus connection error'));
  await Promise.all([pub.connect(), sub.connect()]);
  sub.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    try {
      emitter.emit('event', JSON.parse(message) as BusEvent);
    } catch (err) {
      log.warn({ err }, 'unreadable message on the event bus');
    }
  });
  await sub.subscribe(channel);
  return {
    async publish(e) {
      await pub.publish(channel, JSON.stringify(e));
    },
    subscribe,
    async close() {
      emitter.emit('close');
      sub.disconnect();
      pub.disconnect();
    },
  };
}
