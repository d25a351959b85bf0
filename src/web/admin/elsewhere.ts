/**
 * Orders on a transfer another process runs (issue 35 item 4). A CLI client on the same database, or
 * another cluster member, runs its transfers itself and is not told of an order written to the row:
 * a stop would mark a row that process keeps writing (and overwrites at its end), a restart would
 * schedule a second run beside the one still sending. So the administration pages do not act on a
 * RUNNING row this server does not run while its writer is alive, i.e. while it was updated within
 * the last `max(60 s, 2 × timeoutcon)` (every rank save stamps STOPTRANS), and say why. A row whose
 * writer died (no update for longer) can be stopped, cancelled or restarted as before.
 */
import { UpdatedInfo, type TransferRecord } from '../../model/transfer.js';

/** Seconds since another process last wrote this running row, or undefined when nobody else runs it. */
export function runningElsewhere(rec: TransferRecord, runningHere: boolean, now: Date, timeoutConMs: number): number | undefined {
  if (rec.updatedInfo !== UpdatedInfo.RUNNING || runningHere) return undefined;
  const age = now.getTime() - rec.stop.getTime();
  return age < Math.max(60_000, 2 * timeoutConMs) ? Math.max(0, Math.round(age / 1000)) : undefined;
}

export function elsewhereRefusal(action: string, id: bigint, seconds: number): string {
  return `${action} ${id}: not done: the transfer is RUNNING in another process (a CLI client or another server on this database; `
    + `last update ${seconds} s ago), which would not see this order. Stop it where it runs, or wait for its end.`;
}
