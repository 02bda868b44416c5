// Between the root fields of a large query, V8 is asked to start an incremental (non-blocking) major collection:
// what the previous root field loaded is garbage by then, and without the hint V8 lets the heap grow by
// hundreds of MB before collecting it (CONTRACT §13 "Memory"). Node exposes `gc` only behind a V8 flag, set
// here once; the collection runs concurrently, so requests in between are not paused by it.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async' }) => Promise<void> | void;

let gc: Gc | undefined;
try {
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as Gc;
} catch {
  gc = undefined;
}

export async function collectSoon(): Promise<void> {
  await gc?.({ type: 'major', execution: 'async' });
}
