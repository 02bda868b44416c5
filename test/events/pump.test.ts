import { afterEach, describe, expect, it } from 'vitest';
import { Pump } from '../../src/events/pump.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Pump', () => {
  let pump: Pump | undefined;
  afterEach(async () => {
    await pump?.stop();
    pump = undefined;
  });

  /** Wakes the pump every 5 ms for `forMs`, and counts the steps run meanwhile (the first one excluded). */
  async function stepsUnderWakes(gapMs: number, forMs: number): Promise<number> {
    let steps = 0;
    pump = new Pump(
      async () => {
        steps += 1;
        return false;
      },
      60_000,
      () => {},
      gapMs,
    );
    await sleep(gapMs + 20);
    const before = steps;
    const until = performance.now() + forMs;
    while (performance.now() < until) {
      pump.wake();
      await sleep(5);
    }
    return steps - before;
  }

  it('runs a step at each wake without a gap', async () => {
    expect(await stepsUnderWakes(0, 300)).toBeGreaterThan(20);
  });

  it('spaces steps by its gap under a stream of wakes, each taking what arrived meanwhile', async () => {
    // 300 ms of wakes with a 150 ms gap: two or three steps, not one per wake.
    const steps = await stepsUnderWakes(150, 300);
    expect(steps).toBeGreaterThanOrEqual(1);
    expect(steps).toBeLessThanOrEqual(3);
  });

  it('runs a wake after a quiet spell at once, whatever its gap', async () => {
    const started: number[] = [];
    pump = new Pump(
      async () => {
        started.push(performance.now());
        return false;
      },
      60_000,
      () => {},
      200,
    );
    await sleep(300);
    const woken = performance.now();
    pump.wake();
    await sleep(50);
    expect(started).toHaveLength(2);
    expect(started[1]! - woken).toBeLessThan(50);
  });
});
