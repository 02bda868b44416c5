// Whether the client is still waiting for its answer: a signal that aborts when the connection of a request closes
// before its response was written, so work queued for it is dropped (CONTRACT §28 "Overload").
import type { ServerResponse } from 'node:http';

/** Aborts when `res` closes unfinished: the client hung up (or its connection broke) before its answer. */
export function clientGone(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  // A response's 'close' also follows its own end; only one that comes first says the client left.
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}
