// The log output (src/shared/log.ts) is written off the event loop: a consumer that does not read (a full pipe)
// slows nothing, and every line still comes out, on a flush, on exit and after a fatal error.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { createLogger, logOutput } from '../../src/shared/log.js';

const root = resolve(import.meta.dirname, '../..');

it('hands lines on asynchronously, and a flush waits until they are written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'carshare-log-'));
  const fd = openSync(join(dir, 'out.log'), 'w');
  try {
    const output = logOutput(fd);
    const log = createLogger('info', output);
    for (let i = 0; i < 100; i++) log.info({ i }, 'line');
    // Nothing written during the turn that logged.
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('');
    await output.flush();
    const lines = readFileSync(join(dir, 'out.log'), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).i)).toEqual([...Array(100).keys()]);
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
});

// The child logs 4 MB on standard output while nothing reads it (a pipe holds 64 KB), tells how long that took,
// then logs a fatal line and dies of an uncaught error.
const CHILD = `
const { createLogger } = await import('./src/shared/log.ts');
const log = createLogger('info');
const started = performance.now();
const filler = 'x'.repeat(2000);
for (let i = 0; i < 2000; i++) {
  log.info({ i, filler }, 'line');
  if (i % 100 === 99) await new Promise((r) => setImmediate(r));
}
await new Promise((r) => setImmediate(r));
process.send({ ms: performance.now() - started }, () => {
  log.fatal('last words');
  setImmediate(() => { throw new Error('fatal'); });
});
`;

it('is not held up by a consumer that does not read, and writes everything before the process dies', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const stdout = child.stdout!;
  // The child dies with its end of the IPC channel open.
  child.on('error', () => undefined);
  child.channel?.on('error', () => undefined);
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  // Its standard output is not read until it has reported, or for 4 s.
  stdout.pause();
  const report = await new Promise<{ ms: number } | undefined>((ok) => {
    const t = setTimeout(() => ok(undefined), 4000);
    child.once('message', (m) => {
      clearTimeout(t);
      ok(m as { ms: number });
    });
  });
  let out = '';
  stdout.on('data', (d) => {
    out += String(d);
  });
  stdout.resume();
  child.stderr!.resume();
  expect(await exited).toBe(1);
  // A synchronous output blocks until the reader reads (4 s here).
  expect(report?.ms).toBeLessThan(1500);
  const lines = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines.filter((l) => l.msg === 'line').map((l) => l.i)).toEqual([...Array(2000).keys()]);
  expect(lines.at(-1)).toMatchObject({ level: 60, msg: 'last words' });
}, 30_000);
