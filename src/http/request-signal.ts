// Whether the client is still waiting for its answer: a signal that aborts when the connection of a request closes
// before its response was written, so work queued for it is dropped (CONTRACT §28 "Overload"). The signal also
// tells when its request arrived, so that a queue's wait counts from then, not from the moment it joined.
import type { ServerResponse } from 'node:http';
import { arrivalOf } from './arrival.js';

const arrivals = new WeakMap<AbortSignal, number>();

/** Aborts when `res` closes unfinished: the client hung up (or its connection broke) before its answer. */
export function clientGone(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  // A response's 'close' also follows its own end; only one that comes first says the client left.
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const arrived = arrivalOf(res);
  if (arrived !== undefined) arrivals.set(gone.signal, arrived);
  return gone.signal;
}

/** `performance.now()` when the request a signal stands for arrived (arrival.ts); undefined when unknown. */
export const arrivalOfSignal = (signal: AbortSignal | undefined): number | undefined =>
  signal ? arrivals.get(signal) : undefined;
