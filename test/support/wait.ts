// Waiting for a condition instead of sleeping: a test goes on as soon as what it needs is true, and a timeout
// names what never happened.
import type { Orm } from '../../src/db/orm.js';

/** Polls `probe` until it returns something truthy (which it then returns), or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  opts: { timeoutMs?: number; everyMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? 'a condition'}`);
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 25));
  }
}

/**
 * Until some session on the test database waits for a lock: a concurrent statement has reached the row another
 * transaction holds. Tests of locking use it to know the second writer is blocked before they let the first go.
 */
export async function waitForLockWait(orm: Orm): Promise<void> {
  const conn = orm.em.fork().getConnection();
  await waitFor(
    async () => {
      const [w] = await conn.execute<{ n: number }[]>(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return w!.n > 0;
    },
    { timeoutMs: 5000, what: 'a session to wait on a lock' },
  );
}
