// Memory that glibc's malloc holds but no longer uses goes back to the operating system when the process falls
// quiet (malloc_trim). Page bodies, TLS records and V8's native work are malloc'd and freed in the arena. glibc
// hands pages back only from the arena's top, so what a burst of pages left free in the middle stays resident
// after the burst, and the resident size ratchets from one kind of load to the next: docs/performance.md, twelfth
// day, measured 20–29 MB free in a 60 MB arena after 100-car pages.
// The trim runs in quiet seconds (the event loop busy less than a tenth of the last one), never under load: trimming
// every second under load took 2–13 MB off the peaks and, in one of two alternated runs, cost 5–8 % more CPU
// per request (pages handed back, then faulted in again). Not only the first quiet second: V8 frees a burst's
// Buffers when it next collects, which its memory reducer does a few seconds into the quiet.
// It is no garbage collection: nothing live is moved or examined. glibc only; elsewhere (musl, macOS) the service
// runs without it and says so once.
import { createRequire } from 'node:module';
import type { Metrics } from './metrics/metrics.js';
import type { Logger } from './shared/log.js';

/** The share of a second the event loop may be busy in a quiet spell. */
const QUIET_UTILIZATION = 0.1;

export type Trim = () => boolean;

/** glibc's malloc_trim(0) through koffi (a foreign-function interface with prebuilt binaries), or why not. */
export function loadMallocTrim(): Trim | Error {
  if (process.platform !== 'linux') return new Error(`malloc_trim is glibc's; this is ${process.platform}`);
  // Elsewhere than on glibc (musl) there is no libc.so.6, or no malloc_trim in it: koffi says which.
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const fn = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number;
    return () => fn(0) === 1;
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

export interface MallocTrimming {
  stop(): void;
}

/**
 * Looks every `everyMs` (0: never) at how busy the event loop was since the last look, and trims when it was quiet.
 * Trims are counted in `process_malloc_trims_total`, their time in `process_malloc_trim_seconds_total`.
 */
export function startMallocTrim(opts: {
  everyMs: number;
  log: Logger;
  metrics: Metrics;
  /** The event loop's utilization since the last call (tests give their own). */
  utilization?: () => number;
  trim?: Trim;
}): MallocTrimming {
  if (opts.everyMs === 0) return { stop() {} };
  const trim = opts.trim ?? loadMallocTrim();
  if (trim instanceof Error) {
    opts.log.info({ reason: trim.message }, 'freed malloc memory is not handed back to the system');
    return { stop() {} };
  }
  const utilization = opts.utilization ?? loopUtilization();
  const trims = opts.metrics.counter(
    'process_malloc_trims_total',
    'Times freed malloc memory was handed back to the operating system (malloc_trim), in quiet seconds',
  );
  const seconds = opts.metrics.counter(
    'process_malloc_trim_seconds_total',
    'Time spent handing freed malloc memory back to the operating system (malloc_trim)',
  );
  const timer = setInterval(() => {
    if (utilization() >= QUIET_UTILIZATION) return;
    const start = performance.now();
    trim();
    seconds.inc((performance.now() - start) / 1000);
    trims.inc();
  }, opts.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** The event loop's utilization (0–1) between one call and the next. */
function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const u = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return u;
  };
}
