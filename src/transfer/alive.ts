/**
 * How long a RUNNING row's writer counts as alive (issue 35 item 2). A transfer run by another
 * process (a CLI client on the same database, another cluster member) is not told of an order
 * written to its row, so the order service refuses stop, cancel and restart on a RUNNING row this
 * process does not run while that row was written within this window (its STOPTRANS, stamped by
 * every write). The process running it keeps the row fresher than that while it runs tasks
 * (RunnerRow.keepFresh(), every window / 3), so a pre-task of five minutes does not look dead.
 */

/** `max(60 s, 2 × timeoutcon)`: waits for the partner are bounded by timeoutcon; `override` (tests) replaces it. */
export function aliveWindowMs(timeoutConMs: number, override?: number): number {
  return override ?? Math.max(60_000, 2 * timeoutConMs);
}

/** The heartbeat of a running row: a third of the window, so a late or skipped write still lands inside it. */
export function heartbeatMs(windowMs: number): number {
  return Math.max(1, Math.floor(windowMs / 3));
}
