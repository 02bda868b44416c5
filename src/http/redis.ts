// The Redis connection instances share for rate-limit counters and REST cache invalidation, when REDIS_URL is set.
import { Redis } from 'ioredis';
import type { Logger } from '../shared/log.js';

export interface SharedRedis {
  client: Redis | undefined;
  /** Logs that Redis cannot be reached; its users step aside meanwhile. */
  trouble(err: unknown): void;
  close(): Promise<void>;
}

export function sharedRedis(url: string | undefined, log: Logger): SharedRedis {
  // A command fails after one reconnection attempt instead of waiting in a queue: while Redis is down, rate limits
  // and the REST cache step aside (fail open) rather than hold every request.
  const client = url ? new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 }) : undefined;
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
