/**
 * msend's files in flight (decision 0052): jobs started in the order of their items, at most
 * `width()` of them running at once, their results returned in that same order whatever order
 * they end in. `width()` is asked before each start, so a caller can widen the window as it learns
 * (msend: one file alone until the partner has taken one, then several on the same connection).
 */

export interface InOrderWindow<T> {
  /** How many jobs may run at once now (at least 1). */
  width(): number;
  /** Runs item `index`. A rejection stops the whole run (the jobs already running still end). */
  job(index: number): Promise<T>;
  /** True when no job may start after this result (the ones already running end and are kept). */
  stopsAfter(result: T): boolean;
}

/**
 * Runs `count` jobs through the window; resolves with the results of the jobs that ran, in item
 * order (after a stop: every item started before the stop, not only those before the stopping one).
 */
export async function runInOrderWindow<T>(count: number, w: InOrderWindow<T>): Promise<T[]> {
  const results: Array<{ value: T } | undefined> = new Array<{ value: T } | undefined>(count);
  const running = new Set<Promise<void>>();
  let stopped = false;
  let failure: { error: unknown } | undefined;
  for (let next = 0; next < count && !stopped && failure === undefined; next++) {
    while (running.size >= Math.max(1, w.width()) && failure === undefined) await Promise.race(running);
    if (stopped || failure !== undefined) break;
    const index = next;
    const run: Promise<void> = w.job(index).then(
      (value) => {
        results[index] = { value };
        if (w.stopsAfter(value)) stopped = true;
      },
      (error: unknown) => {
        failure ??= { error };
      },
    ).finally(() => running.delete(run));
    running.add(run);
  }
  await Promise.all(running);
  if (failure !== undefined) throw failure.error;
  return results.flatMap((r) => (r === undefined ? [] : [r.value]));
}
