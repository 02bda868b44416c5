// The per-request context: a forked EntityManager, the actor, the clock, and lazily created loaders.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Actor } from '../access/actor.js';
import type { CarShare } from '../carshares/car-share.js';
import type { Clock } from '../shared/clock.js';

export interface Context {
  /** Scoped to `carShare` (src/db/scope.ts): every statement runs in its scope, as the app role. */
  em: EntityManager;
  /** The car share the request addresses (CONTRACT §19). */
  carShare: CarShare;
  actor: Actor;
  clock: Clock;
  requestId: string;
  log: Logger;
  /** Aborts when the client hangs up before its answer: a queued execution then never starts (execution-gate.ts). */
  signal?: AbortSignal | undefined;
  /** Loaders live per context; a mutation's transactional context gets its own. */
  loaders: Map<string, unknown>;
  /** Work to run once the mutation's transaction has committed (publishing events). */
  afterCommit: (() => Promise<void> | void)[];
  /**
   * The /graphql request's client address, for the rate limits of its mutation fields (CONTRACT §28); absent for
   * the clients in this process (the facade, the dashboard), counted by their own HTTP request.
   */
  clientIp?: string;
}

/** What a domain command needs of a request: its unit of work, who asks, and the time. */
export type CommandContext = Pick<Context, 'em' | 'actor' | 'clock'>;

export function createContext(base: Omit<Context, 'loaders' | 'afterCommit'>): Context {
  return { ...base, loaders: new Map(), afterCommit: [] };
}
