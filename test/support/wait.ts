// Waiting for a condition instead of sleeping: a test goes on as soon as what it needs is true, and a timeout
// names what never happened.

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
