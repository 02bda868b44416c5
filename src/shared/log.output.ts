// Where log lines go: a file descriptor (standard output) written without ever blocking the event loop, so a slow
// log consumer (a full pipe) slows no request; flushed on stop, and synchronously on exit and after a fatal error.
import { write, writeSync } from 'node:fs';

export interface LogOutput {
  write(line: string): void;
  /** Resolves once every line logged so far has been written (or the output is broken). */
  flush(): Promise<void>;
  /** Writes every pending line now, blocking: for the process's exit, when no turn comes after. */
  flushSync(): void;
  /** Lines dropped because the consumer was too slow for the buffer. */
  readonly dropped: number;
}

/** Lines held back longer than this are handed on at once rather than at the end of the turn. */
const MAX_PENDING = 64 * 1024;
/**
 * What waits for a consumer slower than the service: past this, lines are dropped rather than memory growing
 * without end. About three seconds of request lines at 30,000 requests a second.
 */
const MAX_BUFFERED = 16 * 1024 * 1024;
/** How long a full non-blocking output is left before the next try. */
const RETRY_MS = 10;
/**
 * After a write, how long what was logged meanwhile waits to be written with what follows: under load the next write
 * carries a few milliseconds of lines, not one turn's (a write per turn was half the 304's cost of its request line,
 * bench S3 profile). A flush, and more than `MAX_PENDING`, write at once.
 */
const LINGER_MS = 5;

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const isFull = (err: unknown) => (err as { code?: unknown } | null)?.code === 'EAGAIN';

/**
 * Lines logged during a turn of the event loop go out in one write at its end (a write per line made each request
 * line a system call of its own: a tenth of a 304's time in the S3 profile, test/bench), one write at a time. A
 * write goes to libuv's thread pool, so a blocking descriptor that is full holds a pool thread, not the loop. A
 * non-blocking one (a pipe Node set up) says EAGAIN when full: from then on it is written from the loop itself,
 * which never blocks, and retried a little later, so what is written is always known exactly, for `flushSync`.
 */
export function logOutput(fd = 1, maxBuffered = MAX_BUFFERED): LogOutput {
  let pending = '';
  let scheduled = false;
  /** The bytes being written: in the thread pool (`inPool`), or waiting for a full output to take them. */
  let chunk: Buffer | undefined;
  let inPool = false;
  let nonBlocking = false;
  let broken = false;
  let dropped = 0;
  const waiting: (() => void)[] = [];

  const settle = () => {
    for (const done of waiting.splice(0)) done();
  };
  const fail = () => {
    // EPIPE and the like: nobody reads any more, and nothing will be written.
    broken = true;
    chunk = undefined;
    pending = '';
    settle();
  };
  const wrote = (n: number) => {
    chunk = n < chunk!.length ? chunk!.subarray(n) : undefined;
    if (chunk) attempt();
    else if (pending === '' || waiting.length > 0 || pending.length >= MAX_PENDING) next();
    else if (!scheduled) {
      scheduled = true;
      setTimeout(next, LINGER_MS).unref();
    }
  };
  function attempt(): void {
    if (nonBlocking) {
      let n: number;
      try {
        n = writeSync(fd, chunk!);
      } catch (err) {
        if (isFull(err)) setTimeout(attempt, RETRY_MS);
        else fail();
        return;
      }
      wrote(n);
      return;
    }
    inPool = true;
    write(fd, chunk!, (err, n) => {
      inPool = false;
      if (!err) return wrote(n);
      if (!isFull(err)) return fail();
      nonBlocking = true;
      setTimeout(attempt, RETRY_MS);
    });
  }
  const next = () => {
    scheduled = false;
    if (chunk || broken) return;
    if (pending === '') return settle();
    chunk = Buffer.from(pending);
    pending = '';
    attempt();
  };

  return {
    get dropped() {
      return dropped;
    },
    write(line) {
      if (broken) return;
      if (pending.length + line.length > maxBuffered) {
        dropped += 1;
        return;
      }
      pending += line;
      if (chunk) return; // the write in progress takes what follows when it is done
      if (pending.length >= MAX_PENDING) next();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(next);
      }
    },
    flush: () =>
      new Promise<void>((done) => {
        if (broken || (!chunk && pending === '')) return done();
        waiting.push(done);
        if (!chunk) next();
      }),
    flushSync() {
      if (broken) return;
      // A chunk in the thread pool is being written there (a blocking descriptor): what follows it is written here.
      let rest = Buffer.concat([inPool || !chunk ? Buffer.alloc(0) : chunk, Buffer.from(pending)]);
      chunk = undefined;
      pending = '';
      while (rest.length > 0) {
        try {
          rest = rest.subarray(writeSync(fd, rest));
        } catch (err) {
          if (!isFull(err)) return fail();
          sleep(RETRY_MS);
        }
      }
      settle();
    },
  };
}
