// One lane of the execution gate (execution-gate.ts): a weighted semaphore whose queue is bounded in length and in
// waiting time, and whose waiters leave when their client hangs up; what it refuses is a `GateRefusal`, which the
// service answers with 503 `ServiceUnavailable` and `Retry-After` (CONTRACT §28 "Overload").

import type { GraphQLFormattedError } from 'graphql';
import { arrivalOfSignal } from '../http/request-signal.js';

/** What a refused client is told to wait before trying again (`Retry-After`, seconds). */
export const RETRY_AFTER_SECONDS = 2;

/** Why an execution was refused: its lane's queue was full, it waited too long, or its client hung up. */
export const shedReasons = ['queue_full', 'wait_timeout', 'disconnected'] as const;
export type ShedReason = (typeof shedReasons)[number];

/** An execution the gate will not start (CONTRACT §28): answered 503 `ServiceUnavailable` with `Retry-After`. */
export class GateRefusal extends Error {
  readonly code = 'ServiceUnavailable';
  readonly reason: ShedReason;
  readonly retryAfterSeconds = RETRY_AFTER_SECONDS;
  constructor(reason: ShedReason) {
    super(
      reason === 'disconnected'
        ? 'The client closed the request before it started'
        : `The service is overloaded; retry in ${RETRY_AFTER_SECONDS} s`,
    );
    this.name = 'GateRefusal';
    this.reason = reason;
  }
}

/** Duck-typed check: under vitest a module can load twice, so instanceof is not reliable. */
export const isGateRefusal = (e: unknown): e is GateRefusal =>
  typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'GateRefusal';

/** A refusal of the gate as the GraphQL error of its answer (CONTRACT §28): `ServiceUnavailable`, when to retry. */
export const refusalError = (refusal: GateRefusal): GraphQLFormattedError => ({
  message: refusal.message,
  extensions: { code: refusal.code, meta: { retryAfterSeconds: refusal.retryAfterSeconds } },
});

export interface Lane {
  enter(weight: number, signal: AbortSignal | undefined): Promise<() => void>;
  readonly waiting: number;
  /** The weight running now. */
  readonly inUse: number;
  /** The executions running now. */
  readonly running: number;
}

export interface LaneOptions {
  budget: number;
  /** What may wait, in weight. */
  maxQueued: number;
  maxWaitMs: number;
  /** Told once per execution refused. */
  shed: (reason: ShedReason) => void;
}

interface Waiter {
  weight: number;
  start(): void;
}

/**
 * A weighted semaphore, first come first served: a heavy one at the head is not overtaken by lighter ones forever.
 * A waiter leaves the queue when it starts, when it has waited `maxWaitMs`, or when its signal aborts.
 */
export function lane({ budget, maxQueued, maxWaitMs, shed }: LaneOptions): Lane {
  let inUse = 0;
  let running = 0;
  let queued = 0;
  const queue: Waiter[] = [];

  const fits = (weight: number) => inUse === 0 || inUse + weight <= budget;
  const admit = () => {
    while (queue.length > 0) {
      const head = queue[0]!;
      if (!fits(head.weight)) return;
      queue.shift();
      queued -= head.weight;
      inUse += head.weight;
      running += 1;
      head.start();
    }
  };
  const releaser = (weight: number) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inUse -= weight;
      running -= 1;
      admit();
    };
  };
  const refusal = (reason: ShedReason) => {
    shed(reason);
    return new GateRefusal(reason);
  };

  return {
    get waiting() {
      return queue.length;
    },
    get inUse() {
      return inUse;
    },
    get running() {
      return running;
    },
    enter(weight, signal) {
      if (signal?.aborted) return Promise.reject(refusal('disconnected'));
      if (queue.length === 0 && fits(weight)) {
        inUse += weight;
        running += 1;
        return Promise.resolve(releaser(weight));
      }
      if (queued + weight > maxQueued) return Promise.reject(refusal('queue_full'));
      // The wait counts from the request's arrival (a TLS handshake behind a busy event loop included), so that
      // what the service cannot start within maxWaitMs of arriving is refused then, not maxWaitMs after queueing.
      const arrived = arrivalOfSignal(signal);
      const wait = arrived === undefined ? maxWaitMs : maxWaitMs - (performance.now() - arrived);
      if (wait <= 0) return Promise.reject(refusal('wait_timeout'));
      return new Promise((resolve, reject) => {
        const leaveQueue = (reason: ShedReason) => {
          const at = queue.indexOf(waiter);
          if (at < 0) return;
          queue.splice(at, 1);
          queued -= weight;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(refusal(reason));
          // The one that left may have held up those behind it.
          if (at === 0) admit();
        };
        const onAbort = () => leaveQueue('disconnected');
        const timer = setTimeout(() => leaveQueue('wait_timeout'), wait);
        const waiter: Waiter = {
          weight,
          start() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            resolve(releaser(weight));
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
        queued += weight;
      });
    },
  };
}
