// Between the root fields of a large query, V8 is asked to start an incremental (non-blocking) major collection
// once the heap has grown by a good margin: what the previous root fields loaded is garbage by then, and without
// the hint V8 lets the heap grow by hundreds of MB before collecting it (CONTRACT §13 "Memory"). Node exposes
// `gc` only behind a V8 flag, set here once; the collection marks concurrently, so requests in between go on.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async' }) => Promise<void> | void;

/** Growth of the used heap since the last hint that is worth a collection. */
const GROWTH_BYTES = 16 * 1024 * 1024;

let gc: Gc | undefined;
try {
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as Gc;
} catch {
  gc = undefined;
}
/** The used heap when the last hint was given (or when first asked): growth is measured from there. */
let usedAtLastHint: number | undefined;

export function collectSoon(): void {
  if (!gc) return;
  const used = getHeapStatistics().used_heap_size;
  if (usedAtLastHint === undefined || used < usedAtLastHint) usedAtLastHint = used;
  if (used - usedAtLastHint < GROWTH_BYTES) return;
  usedAtLastHint = used;
  void gc({ type: 'major', execution: 'async' });
}
