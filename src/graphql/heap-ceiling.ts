// Resident memory under large answers (CONTRACT §13 "Memory"): a page of 100 cars allocates ~4 MB to answer ~200 KB,
// and with 100 connections asking for pages V8 lets the garbage of hundreds of them pile up before its own full
// collection, sized from what is live, comes round (S1 peaked at 300–320 MB). After an execution that queued in a
// lane of the execution gate (pages and large queries: nothing else allocates like them), this checks V8's used
// heap against a ceiling and, above it, collects in full once the current turn's I/O is done. The ceiling follows
// what is live (growth × the heap found after the last collection, never below the floor), so a large live heap
// raises it instead of collecting after every page; single objects, 304s and short pages never pay for it.
import { getHeapStatistics } from 'node:v8';

export interface HeapCeilingOptions {
  /** The ceiling never goes below this many bytes of used heap. */
  floorBytes: number;
  /** After a collection, the ceiling is this × the heap left in use (what is live). */
  growth: number;
  /** A full, synchronous collection; without one (no `--expose-gc`) the ceiling does nothing. */
  collect: (() => void) | undefined;
  usedHeap?: () => number;
  /** Defers the collection until the current turn's I/O callbacks ran (setImmediate). */
  defer?: (run: () => void) => void;
  /** Told after each collection it made (a metric). */
  collected?: () => void;
}

export interface HeapCeiling {
  /** Called when a queued execution leaves the gate. */
  check(): void;
  /** The ceiling now, in bytes (for tests and metrics); 0 when it does nothing (no collector). */
  readonly bytes: number;
  /** Collections it asked for so far. */
  readonly collections: number;
}

export function heapCeiling({
  floorBytes,
  growth,
  collect,
  usedHeap = () => getHeapStatistics().used_heap_size,
  defer = (run) => setImmediate(run),
  collected = () => undefined,
}: HeapCeilingOptions): HeapCeiling {
  let ceiling = floorBytes;
  let pending = false;
  let collections = 0;
  return {
    get bytes() {
      return collect ? ceiling : 0;
    },
    get collections() {
      return collections;
    },
    check() {
      if (!collect || pending || usedHeap() <= ceiling) return;
      pending = true;
      defer(() => {
        try {
          collect();
          collections += 1;
          ceiling = Math.max(floorBytes, Math.round(usedHeap() * growth));
          collected();
        } finally {
          pending = false;
        }
      });
    },
  };
}

/** `globalThis.gc` as `--expose-gc` defines it (`npm start` passes the flag), as a full synchronous collection. */
export function exposedFullCollection(): (() => void) | undefined {
  const gc = (globalThis as { gc?: (options?: { type: 'major'; execution: 'sync' }) => void }).gc;
  return gc ? () => gc({ type: 'major', execution: 'sync' }) : undefined;
}
