// A background task run every `everyMs` on this instance, never two runs at once; stopping waits for the run in
// progress, so shutdown does not close the database under a sweep's transaction.
export interface Periodic {
  stop(): Promise<void>;
}

export function every(
  everyMs: number,
  task: () => Promise<unknown>,
  onError: (err: unknown) => void,
): Periodic {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = task()
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
      });
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
