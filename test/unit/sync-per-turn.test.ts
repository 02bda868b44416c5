// One barrier per turn of the event loop (src/access/sync.barrier.ts `coalescedPerTurn`): the instance's listening
// connection serves the token cache and the car share registry with it (src/service.ts), so the requests of one turn
// cost one protocol Sync between them, and a caller never shares a barrier that started before it called.
import { describe, expect, it } from 'vitest';
import { coalescedPerTurn } from '../../src/access/sync.barrier.js';

describe('coalescedPerTurn', () => {
  it('sends one barrier for every caller of a turn, after the turn', async () => {
    let sent = 0;
    const sync = coalescedPerTurn(async () => {
      sent += 1;
    });
    const callers = Array.from({ length: 10 }, () => sync());
    expect(sent).toBe(0);
    await Promise.all(callers);
    expect(sent).toBe(1);
  });

  it('a caller while a barrier is in flight waits for the next one, which starts after it', async () => {
    const started: number[] = [];
    let release: () => void = () => undefined;
    const sync = coalescedPerTurn(
      () =>
        new Promise<void>((ok) => {
          started.push(started.length + 1);
          release = ok;
        }),
    );
    const first = sync();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1]);
    let secondDone = false;
    const second = sync().then(() => {
      secondDone = true;
    });
    const third = sync();
    release();
    await first;
    await new Promise((r) => setTimeout(r, 5));
    // The second and third share the barrier that started after the first one ended.
    expect(started).toEqual([1, 2]);
    expect(secondDone).toBe(false);
    release();
    await Promise.all([second, third]);
    expect(started).toEqual([1, 2]);
  });

  it('a barrier that fails fails its callers, and the next turn tries again', async () => {
    let calls = 0;
    const sync = coalescedPerTurn(async () => {
      calls += 1;
      if (calls === 1) throw new Error('not listening');
    });
    await expect(Promise.all([sync(), sync()])).rejects.toThrow('not listening');
    await expect(sync()).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
