/**
 * The test runner's pool: jobs in the given order, `slots` at a time, and never two exclusive jobs
 * at once. A slot whose next job is exclusive while another exclusive one runs takes the next job
 * that is not, and sleeps only when every waiting job is exclusive. Written here because a pool
 * library (p-limit, p-queue) limits how many run, not which may run together.
 */
export interface PoolOptions<T> {
  readonly slots: number;
  /** Jobs that may not run beside each other (the test files of tier host). */
  readonly exclusive: (job: T) => boolean;
  /** Asked before each start: false stops the pool from starting more (an interrupted run). */
  readonly keepGoing?: () => boolean;
}

export async function runPool<T, R>(
  jobs: readonly T[],
  options: PoolOptions<T>,
  run: (job: T) => Promise<R>,
): Promise<R[]> {
  const waiting = [...jobs];
  const results: R[] = [];
  let exclusiveRunning = false;
  const sleeping: (() => void)[] = [];
  const keepGoing = options.keepGoing ?? (() => true);
  const worker = async (): Promise<void> => {
    while (waiting.length > 0 && keepGoing()) {
      const index = waiting.findIndex((job) => !(exclusiveRunning && options.exclusive(job)));
      if (index < 0) {
        await new Promise<void>((resolve) => sleeping.push(resolve));
        continue;
      }
      const [job] = waiting.splice(index, 1);
      const exclusive = options.exclusive(job);
      if (exclusive) exclusiveRunning = true;
      try {
        results.push(await run(job));
      } finally {
        if (exclusive) {
          exclusiveRunning = false;
          for (const wake of sleeping.splice(0)) wake();
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.slots, waiting.length) }, worker));
  return results;
}
