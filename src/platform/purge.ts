// The purge of deleted car shares (CONTRACT §23: within 60 s no row of a deleted car share is left), started right
// after a deletion and by every instance's sweep. One purge at a time per database handle: a deletion during a
// purge makes it go round once more, so none waits for the next sweep.
import type { Logger } from 'pino';
import { purgeDeletedCarShares } from '../carshares/car-share.deletion.js';
import type { Orm } from '../db/orm.js';

interface Purging {
  running: Promise<void>;
  again: boolean;
}

const purging = new WeakMap<Orm, Purging>();

/** Purges every deleted car share in the background; resolves when no deleted car share is left to purge here. */
export function startPurge(orm: Orm, log: Pick<Logger, 'warn'>): Promise<void> {
  const current = purging.get(orm);
  if (current) {
    current.again = true;
    return current.running;
  }
  const state: Purging = { running: Promise.resolve(), again: true };
  state.running = (async () => {
    while (state.again) {
      state.again = false;
      try {
        await purgeDeletedCarShares(orm);
      } catch (err) {
        log.warn({ err }, 'purge of deleted car shares failed; the next sweep tries again');
      }
    }
    purging.delete(orm);
  })();
  purging.set(orm, state);
  return state.running;
}
