// Freed malloc memory goes back to the operating system when the process falls quiet (src/malloc-trim.ts).
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { startMallocTrim } from '../../src/malloc-trim.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { createLogger } from '../../src/shared/log.js';

// A fresh Node process fills glibc's arena with 64 KB Buffers (below malloc's mmap threshold, so from the arena),
// keeps every sixteenth so that the arena's top stays in use and glibc cannot give the rest back on its own, frees
// the others, then trims: its resident size must fall by most of what was freed.
const script = `
import { readFileSync } from 'node:fs';
import { loadMallocTrim } from './src/malloc-trim.ts';
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const trim = loadMallocTrim();
if (trim instanceof Error) throw trim;
let buffers = Array.from({ length: 960 }, () => Buffer.allocUnsafeSlow(64 * 1024).fill(1));
const kept = buffers.filter((_, i) => i % 16 === 15);
buffers = undefined;
for (let i = 0; i < 3; i++) {
  globalThis.gc();
  await new Promise((r) => setTimeout(r, 50));
}
const untrimmed = rss();
const trimmed = trim();
console.log(JSON.stringify({ untrimmed, trimmed, after: rss(), kept: kept.length }));
`;

it.runIf(process.platform === 'linux')('hands freed arena memory back to the system', () => {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: new URL('../..', import.meta.url),
      encoding: 'utf8',
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    },
  );
  const r = JSON.parse(out.trim().split('\n').at(-1)!) as {
    untrimmed: number;
    after: number;
    trimmed: boolean;
  };
  expect(r.trimmed).toBe(true);
  // 56 MB were freed in the middle of the arena; at least 40 of them must leave the resident set.
  expect(r.untrimmed - r.after).toBeGreaterThan(40);
});

it('trims in quiet looks, never while the event loop is busy; 0 turns it off', async () => {
  const log = createLogger('silent');
  const on = createMetrics();
  const off = createMetrics();
  // Busy, quiet, quiet, busy, busy, quiet, then busy from there on.
  const looks = [0.5, 0.01, 0.02, 0.9, 0.3, 0.04];
  const trimmedAt: number[] = [];
  let look = 0;
  const trimming = startMallocTrim({
    everyMs: 2,
    log,
    metrics: on,
    utilization: () => looks[look++] ?? 1,
    trim: () => {
      trimmedAt.push(look - 1);
      return true;
    },
  });
  const never = startMallocTrim({
    everyMs: 0,
    log,
    metrics: off,
    trim: () => {
      throw new Error('trimmed although turned off');
    },
  });
  while (look < looks.length + 3) await new Promise((r) => setTimeout(r, 2));
  trimming.stop();
  never.stop();
  expect(trimmedAt).toEqual([1, 2, 5]);
  const value = async (m: typeof on, name: string) =>
    (await m.registry.getSingleMetric(name)?.get())?.values[0]?.value;
  expect(await value(on, 'process_malloc_trims_total')).toBe(3);
  expect(await value(on, 'process_malloc_trim_seconds_total')).toBeGreaterThanOrEqual(0);
  expect(await value(off, 'process_malloc_trims_total')).toBeUndefined();
});
