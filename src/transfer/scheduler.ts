/**
 * The scheduler of submitted transfers (database.md §6, §9.1): a server component that, at start,
 * puts this owner's RUNNING/INTERRUPTED rows back to TOSUBMIT and cleans finished ones, then every
 * `delaycommand` ms starts the due TOSUBMIT rows (at most `runlimit` running), marks rows where
 * this host is only the requested side INTERRUPTED, and retries connection failures after
 * `delayretry` (5 retries by default, counted in the row's TRANSFERINFO map under SCHEDULERETRY so a
 * restart keeps the count; then the row ends in error). A partner's shutdown notice is retried too.
 */
import type { Logger } from 'pino';
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import type { RunnerRepository } from '../store/index.js';
import { infoInteger, readInfoMap, updateInfoMap } from '../tasks/transfer-info.js';
import type { TransferEngine } from './engine.js';
import { isIllegalTransition } from './state.js';

/** Default retries of a scheduled transfer whose connection failed or was lost. */
const SCHEDULED_RETRIES = 5;

/** How long a fence waits for the interrupted transfers to end. */
const FENCE_WAIT_MS = 30_000;

/** Key of the retry counter in the row's TRANSFERINFO map (our own key, docs/transfers.md). */
export const RETRY_KEY = 'SCHEDULERETRY';

/** Retries already made for a row (0 when never retried). */
export function retriesOf(transferInfo: string): number {
  const v = infoInteger(readInfoMap(transferInfo)[RETRY_KEY]);
  return v === undefined || v < 0n ? 0 : Number(v);
}

export interface TransferSchedulerOptions {
  engine: TransferEngine;
  runner: RunnerRepository;
  /** This host's ids: rows whose requester is one of them are started here. */
  ownIds: string[];
  ownerId: string;
  /** `limit/delaycommand` (default 5000 in the original's configuration; tests use less). */
  periodMs: number;
  /** `limit/runlimit`: most transfers started by this scheduler running at once. */
  runLimit: number;
  /** `limit/delayretry`. */
  retryDelayMs: number;
  logger: Logger;
  /** Retries after a failed or lost connection, `delayretry` apart (default 5). */
  retries?: number;
  /**
   * In a cluster (src/cluster/member.ts): due rows are claimed atomically for this member instead
   * of listed, and the start resets nothing (other members run those rows; the take-over job hands
   * back a dead member's). Absent: the single-host path, unchanged.
   */
  claim?: {
    claimDue(now: Date, limit: number): Promise<TransferRecord[]>;
    /** Fencing: false once this member no longer owns its claimed rows (nothing is written or claimed then). */
    owning?(): boolean;
    /** Registers the fence: the scheduler interrupts the transfers it started and forgets their ends. */
    onFence?(listener: () => Promise<void>): void;
  };
}

export class TransferScheduler {
  readonly name = 'transfer-scheduler';
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Map<string, Promise<void>>();
  private ticking = false;
  /** A scan was asked while one ran: run another right after it. */
  private rescan = false;
  /** A scan is already queued for the next turn of the event loop (see kick()). */
  private kicked = false;
  private stopped = false;
  /** Ends of attempts the store refused to record: written again at each scan (settleOrKeep()). */
  private readonly unsettled = new Map<string, { keyCols: RowKey; end: AttemptEnd }>();
  /** Attempts interrupted by a cluster fence: their ends are not written (another member owns the rows). */
  private readonly fenced = new Set<string>();
  /** A blocked scan found due rows and said so (once per block). */
  private blockedNoted = false;
  /** The rows of the transfers in flight (the fence interrupts them by key). */
  private readonly attempts = new Map<string, RowKey>();

  constructor(private readonly opts: TransferSchedulerOptions) {
    opts.claim?.onFence?.(() => this.fence());
  }

  /**
   * A cluster fence (src/cluster/member.ts): every transfer this scheduler started ends with
   * Shutdown (resumable), their ends and the ends not yet recorded are dropped. Resolves when they
   * ended (an attempt still connecting is interrupted once the engine runs it), at most FENCE_WAIT_MS.
   */
  private async fence(): Promise<void> {
    this.unsettled.clear();
    const attempts = [...this.attempts];
    for (const [k] of attempts) this.fenced.add(k);
    const deadline = Date.now() + FENCE_WAIT_MS;
    while (attempts.some(([k]) => this.inFlight.has(k)) && Date.now() < deadline) {
      for (const [k, ref] of attempts) if (this.inFlight.has(k)) this.opts.engine.interrupt(ref);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async start(): Promise<void> {
    const { runner, ownerId } = this.opts;
    const reset = this.opts.claim ? 0 : await runner.resetInterrupted(ownerId);
    // In a cluster the member's start cleans, one member at a time (src/cluster/member.ts).
    const cleaned = this.opts.claim ? 0 : await runner.markFinishedAsDone(ownerId);
    if (reset > 0 || cleaned > 0) this.opts.logger.info({ reset, cleaned }, 'transfers reset for resubmission at start');
    this.stopped = false;
    this.schedule(0);
  }

  describe(): string[] {
    return [`transfer scheduler every ${this.opts.periodMs} ms (runlimit ${this.opts.runLimit})`];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // Running transfers end with Shutdown; their rows are resumed at the next start.
    await this.opts.engine.close();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Runs one scan now (tests, and a hint after a submission). */
  async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.ticking) {
      this.rescan = true;
      return;
    }
    this.ticking = true;
    try {
      if (this.opts.claim?.owning?.() === false) return;
      for (const [key, u] of [...this.unsettled]) if (!this.inFlight.has(key)) await this.settleOrKeep(key, u.keyCols, u.end);
      // Blocked by order (r66-protocol.md §9.12): due rows wait for the unblock, none is started.
      if (this.opts.engine.requestsBlocked) return await this.noteBlocked();
      this.blockedNoted = false;
      do {
        this.rescan = false;
        const free = this.opts.runLimit - this.inFlight.size;
        if (free <= 0) break;
        const { claim } = this.opts;
        const due = claim ? await claim.claimDue(new Date(), free) : await this.opts.runner.listDue(this.opts.ownerId, new Date(), free);
        for (const record of due) this.launch(record);
      } while (this.rescan && !this.stopped);
    } catch (err) {
      this.opts.logger.error({ err: (err as Error).message }, 'scheduler scan failed');
    } finally {
      this.ticking = false;
    }
  }

  /** Says once per block that due rows wait (the operator sees why nothing starts). */
  private async noteBlocked(): Promise<void> {
    if (this.blockedNoted || this.opts.claim) return;
    const due = await this.opts.runner.listDue(this.opts.ownerId, new Date(), 1);
    if (due.length === 0) return;
    this.blockedNoted = true;
    this.opts.logger.info('new transfers are blocked: due transfers wait for the unblock');
  }

  /**
   * A slot freed (a transfer ended): scan for due rows now instead of at the next period, or the
   * rate is capped at runlimit per delaycommand (16 per 100 ms = 160/s) whatever the transfers
   * cost. Ends in the same turn of the event loop share one scan.
   */
  private kick(): void {
    if (this.kicked || this.stopped) return;
    this.kicked = true;
    setImmediate(() => {
      this.kicked = false;
      void this.tick();
    });
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule(this.opts.periodMs));
    }, delay);
    this.timer.unref();
  }

  private launch(record: TransferRecord): void {
    const key = `${record.requested} ${record.requester} ${record.specialId}`;
    if (this.inFlight.has(key)) return;
    const { runner } = this.opts;
    const keyCols = { specialId: record.specialId, requester: record.requester, requested: record.requested, ownerReq: record.ownerReq };
    if (!this.opts.ownIds.includes(record.requester)) {
      // Only the requester starts a transfer (database.md §9.1).
      // A refused write (the database went away since the scan) leaves the row due: a later scan
      // writes it. Handled here: nothing awaits this promise before stop() (issue 32 item 1).
      this.inFlight.set(key, runner.move(record, { kind: 'notRequester' }).then(
        () => undefined,
        (err: unknown) => this.opts.logger.warn({ err: (err as Error).message, id: String(record.specialId) }, 'due row not requested here could not be marked; a later scan tries again'),
      ).finally(() => this.inFlight.delete(key)));
      return;
    }
    this.attempts.set(key, keyCols);
    const run = (async () => {
      let end: AttemptEnd;
      try {
        // No RUNNING write of its own here: the attempt writes RUNNING with its first write, before
        // its Request (or its failure), and `inFlight` keeps the next scans off the row meanwhile.
        const outcome = await this.opts.engine.runOnce(record);
        // A partner that shut down comes back: its notice is retried like a lost connection.
        const retryable = outcome.retryable || (outcome.code === ErrorCode.Shutdown && outcome.record.updatedInfo !== UpdatedInfo.DONE);
        // An end the database could not record is settled like a failed attempt: from the row read
        // back (the attempt's record is ahead of it), written once the database answers.
        end = outcome.unrecorded === true
          ? { code: outcome.code, retryable: true, fallback: record, recordCode: true }
          : { code: outcome.code, retryable, fallback: outcome.record, recordCode: false };
      } catch (err) {
        // The attempt itself failed (a store error...): nothing wrote its end, the row says RUNNING.
        this.opts.logger.error({ err: (err as Error).message, id: String(record.specialId) }, 'scheduled transfer attempt failed; it is retried');
        end = { code: ErrorCode.Internal, retryable: true, fallback: record, recordCode: true };
      }
      if (this.stopped || this.fenced.has(key)) return;
      await this.settleOrKeep(key, keyCols, end);
    })()
      .catch((err: unknown) => this.opts.logger.error({ err: (err as Error).message, id: String(record.specialId) }, 'scheduled transfer failed'))
      .finally(() => {
        this.fenced.delete(key);
        this.attempts.delete(key);
        this.inFlight.delete(key);
        this.kick();
      });
    this.inFlight.set(key, run);
  }

  /**
   * Writes what an attempt's end means for its row; when the store refuses, the row is kept and
   * written again at the next scans, so it never stays RUNNING with nothing running it.
   */
  private async settleOrKeep(key: string, keyCols: RowKey, end: AttemptEnd): Promise<void> {
    try {
      await this.settle(keyCols, end);
      this.unsettled.delete(key);
    } catch (err) {
      if (isIllegalTransition(err)) {
        // The row moved on meanwhile (finished): nothing to write, nothing to try again.
        this.opts.logger.warn({ err: err.message, id: String(keyCols.specialId) }, 'end of a scheduled transfer not recorded');
        this.unsettled.delete(key);
        return;
      }
      this.opts.logger.error({ err: (err as Error).message, id: String(keyCols.specialId) }, 'cannot record the end of a scheduled transfer; tried again at the next scan');
      this.unsettled.set(key, { keyCols, end });
    }
  }

  /** Retry (TOSUBMIT `delayretry` later, counted in the row) or give up (INERROR), or reset the count. */
  private async settle(keyCols: RowKey, end: AttemptEnd): Promise<void> {
    const { runner } = this.opts;
    // An attempt that ended normally returns its row as it wrote it: no need to read it back.
    const row = end.recordCode ? ((await runner.get(keyCols)) ?? end.fallback) : end.fallback;
    const max = this.opts.retries ?? SCHEDULED_RETRIES;
    // Above the limit: the scheduler gave up before and the row was resubmitted (fresh count).
    const stored = retriesOf(row.transferInfo);
    const done = stored > max ? 0 : stored;
    const status = end.recordCode ? { code: end.code } : {};
    if (end.retryable) {
      // The count lives in the row (TRANSFERINFO map), so a restart of this server keeps it.
      const n = done + 1;
      const info = updateInfoMap(row.transferInfo, { [RETRY_KEY]: n });
      if (n <= max) {
        this.opts.logger.info({ id: String(keyCols.specialId), code: end.code.char, retry: n, of: max }, `transfer retried in ${this.opts.retryDelayMs} ms`);
        await runner.move(row, { kind: 'retryLater', at: new Date(Date.now() + this.opts.retryDelayMs), ...status }, { transferInfo: info });
        return;
      }
      // Given up: the count stays one above the limit, visible in the row.
      this.opts.logger.warn({ id: String(keyCols.specialId), code: end.code.char, retries: max }, 'transfer in error after its retries');
      await runner.move(row, { kind: 'givenUp', ...status }, { transferInfo: info });
    } else if (stored > 0) {
      await runner.updateInfo(keyCols, { transferInfo: updateInfoMap(row.transferInfo, { [RETRY_KEY]: 0 }) });
    }
  }
}

type RowKey = Pick<TransferRecord, 'specialId' | 'requester' | 'requested' | 'ownerReq'>;

/** How an attempt ended, for its row. */
interface AttemptEnd {
  code: ErrorCodeInfo;
  retryable: boolean;
  /** The record to read the retry count from when the row cannot be read back. */
  fallback: TransferRecord;
  /** True when the attempt did not write its code in the row itself (it threw). */
  recordCode: boolean;
}
