/**
 * The database side of the live pages: the RUNNER rows whose STOPTRANS moved since the last poll.
 * Every writer stamps STOPTRANS on each change (state, rank), whoever it is: this server, a CLI
 * client process on the same database, REST, a FileWatcher, another cluster member. So one indexed
 * range read (IDX_PUSH_FILTER starts with STOPTRANS) per interval, for all viewers together, sees
 * every transfer the engine's own events cannot. Bounded: at most `limit` rows per poll.
 *
 * A row can be committed a little after the time it was stamped with, or by a host whose clock is a
 * little behind: each poll re-reads the last `slackMs` and drops rows already seen unchanged. The
 * window never starts past this host's clock, so a row stamped ahead of it hides nothing.
 */
import type { TransferRecord } from '../model/transfer.js';
import type { RunnerRepository } from '../store/index.js';
import { transferKey, type RowFeed } from './live.js';

export interface DatabaseFeedOptions {
  /** Re-read window behind the newest STOPTRANS seen (late commits, clock skew between hosts). */
  slackMs?: number;
  /** Rows read per poll at most. */
  limit?: number;
  now?: () => Date;
}

/** A row's state as far as the pages show it: a change of any of these is news. */
function signature(r: TransferRecord): string {
  return `${r.stop.getTime()}|${r.rank}|${r.updatedInfo}|${r.globalStep}|${r.stepStatus.char}|${r.infoStatus.char}`;
}

export class DatabaseFeed implements RowFeed {
  private readonly slackMs: number;
  private readonly limit: number;
  private readonly now: () => Date;
  /** Newest STOPTRANS seen (ms); undefined before the first poll. */
  private newest: number | undefined;
  /** Rows seen inside the re-read window: key -> [signature, STOPTRANS ms]. */
  private readonly seen = new Map<string, [string, number]>();

  constructor(private readonly runner: Pick<RunnerRepository, 'list'>, opts: DatabaseFeedOptions = {}) {
    this.slackMs = opts.slackMs ?? 5000;
    this.limit = opts.limit ?? 500;
    this.now = opts.now ?? (() => new Date());
  }

  /** Nobody watches: the next poll starts from now again. */
  reset(): void {
    this.newest = undefined;
    this.seen.clear();
  }

  /** The rows that changed since the previous poll (the first poll looks `slackMs` back). */
  async poll(): Promise<TransferRecord[]> {
    const now = this.now().getTime();
    const from = (this.newest ?? now) - this.slackMs;
    const rows = await this.runner.list({ stopFrom: new Date(from) }, { orderBy: 'stop', limit: this.limit });
    const fresh: TransferRecord[] = [];
    for (const r of rows) {
      const key = `${transferKey(r)}.${r.ownerReq}`;
      const sig = signature(r);
      if (this.seen.get(key)?.[0] === sig) continue;
      this.seen.set(key, [sig, r.stop.getTime()]);
      fresh.push(r);
    }
    if (rows.length > 0) {
      const last = rows[rows.length - 1]!.stop.getTime();
      // A full read: the next one starts at its last row (no slack), so a burst larger than the
      // limit is walked through instead of re-reading the same first rows.
      // Otherwise never past our own clock: a row stamped ahead of it (a writer whose clock is
      // ahead, a tool that wrote a future STOPTRANS) would hide every other writer's rows until
      // our clock caught up. Such a row is re-read, unchanged and dropped, until then.
      this.newest = rows.length >= this.limit ? last + this.slackMs : Math.min(Math.max(this.newest ?? last, last), now);
    } else this.newest = Math.min(this.newest ?? now, now);
    // Rows the next reads may return again are kept: the window may go back to `now - slackMs`.
    const horizon = Math.min(this.newest ?? 0, now) - this.slackMs;
    for (const [k, [, at]] of this.seen) if (at < horizon) this.seen.delete(k);
    return fresh;
  }
}
