/**
 * Orders on a transfer another process runs (issue 35 item 2). A CLI client on the same database,
 * or another cluster member, runs its transfers itself and is not told of an order written to the
 * row: a stop would mark a row that process keeps writing (and overwrites at its end), a restart
 * would schedule a second run beside the one still sending. So the order service (and with it REST
 * v1 and v2, the web pages, the partners' orders) does not act on a RUNNING row this process does
 * not run while its writer is alive, i.e. while the row was written within the window of
 * transfer/alive.ts (every write stamps STOPTRANS, and a transfer running long tasks keeps it fresh),
 * and says why. A row whose writer died (no write for longer) can be stopped, cancelled or
 * restarted as before.
 */
import { ErrorCode } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';
import { UpdatedInfo, type TransferRecord } from '../model/transfer.js';

/** Seconds since another process last wrote this running row, or undefined when nobody else runs it. */
export function runningElsewhere(rec: TransferRecord, runningHere: boolean, now: Date, windowMs: number): number | undefined {
  if (rec.updatedInfo !== UpdatedInfo.RUNNING || runningHere) return undefined;
  const age = now.getTime() - rec.stop.getTime();
  return age < windowMs ? Math.max(0, Math.round(age / 1000)) : undefined;
}

/**
 * The refusal: what was done (nothing), where the transfer runs and what to do; HTTP 409
 * (http/error-answer.ts). The web pages put `<order> <id>: ` before it.
 */
export function elsewhereRefusal(id: bigint, seconds: number): R66Error {
  return new R66Error(ErrorCode.QueryStillRunning, 'not done: the transfer is RUNNING in another process (a CLI client or another server on this database; '
    + `last update ${seconds} s ago), which would not see this order. Stop it where it runs, or wait for its end.`,
  { details: { reason: 'runningElsewhere', transfer: id.toString(), lastUpdateSeconds: seconds } });
}
