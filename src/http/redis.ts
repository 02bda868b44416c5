// The Redis connection instances share for rate-limit counters and REST cache invalidation, when REDIS_URL is set.
import type { Redis } from 'ioredis';
import type { Logger } from '../shared/log.js';

export interface SharedRedis {
  client: Redis | undefined;
  /** Logs that Redis cannot be reached; its users step aside meanwhile. */
  trouble(err: unknown): void;
  close(): Promise<void>;
}

export async function sharedRedis(url: string | undefined, log: Logger): Promise<SharedRedis> {
  // A command fails after one reconnection attempt instead of waiting in a queue: while Redis is down, rate limits
  // and the REST cache step aside (fail open) rather than hold every request. The client's code is loaded only
  // when Redis is configured (~2 MB of heap an instance without it never holds).
  const client = url
    ? new (await import('ioredis')).Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 })
    : undefined;
  const trouble = (err: unknown) =>
    log.warn({ err }, 'redis unavailable: rate limits and REST cache bypassed');
  client?.on('error', trouble);
  return {
    client,
    trouble,
    async close() {
      await client?.quit();
    },
  };
}
