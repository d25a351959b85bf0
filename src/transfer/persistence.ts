/**
 * The RUNNER row of one transfer on this host and its state transitions (database.md §6.1). The
 * record object in memory is the one tasks see; each transition changes it and writes the changed
 * columns before the caller sends the packet that depends on it (design.md §4). RANK is written at
 * most every N blocks or every second during the data phase (design.md §5).
 *
 * Transitions that follow each other with no packet and no task in between (pre-tasks start and
 * done with an empty task list, the answer's columns then the data phase start...) are staged in
 * memory and written together by the next write: one UPDATE instead of up to five per small
 * transfer, where the database was a third of the CPU (docs/performance.md, decision 0013). A
 * staged change is always written by the next set()/saveAll()/saveRank()/flush(), and every caller
 * that sends a packet or runs a task after staging writes first.
 *
 * The store is the one writer of the row (decision 0047): a write hands it the state columns the
 * staged moves computed (a StateChange of the state machine) and the non-state columns staged
 * since the last write (`runner.saveMoves`); the first write of a new row inserts the record.
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import type { TransferKey, TransferRecord } from '../model/transfer.js';
import { R66Error } from '../model/r66-error.js';
import type { RunnerRepository, TransferStateChange } from '../store/index.js';
import { mergeMoves, transition, type RowFields, type StateChange, type TransferMove } from './state.js';

/**
 * A change of the columns that are not the state's: the state columns (GLOBALSTEP,
 * GLOBALLASTSTEP, STEPSTATUS, UPDATEDINFO) only change through {@link RunnerRow.move}, which asks
 * the state machine (state.ts) and refuses an illegal move before anything is written.
 */
export type DataChange = RowFields;

/**
 * The non-state columns of the record a saveAll() writes: every one tasks or the Request answer may
 * change in place (the key, IDRULE and RETRIEVEMODE never change; the state columns only by a move).
 */
function recordFields(r: TransferRecord): RowFields {
  return {
    step: r.step, rank: r.rank, blockSize: r.blockSize, mode: r.mode, infoStatus: r.infoStatus, isMoved: r.isMoved, filename: r.filename,
    originalName: r.originalName, fileInfo: r.fileInfo, transferInfo: r.transferInfo, start: r.start, stop: r.stop,
  };
}

/**
 * A write of the transfer's row that failed (the database stopped, its connection broke, its file
 * became unwritable...). The transfer fails with it; from then on the row no longer says what the
 * transfer did, so nothing more is written by this attempt and the end is settled by whoever
 * retries it (the scheduler reads the row back once the database answers again; docs/transfers.md).
 */
export class RowWriteError extends R66Error {
  constructor(override readonly cause: unknown) {
    super(ErrorCode.Internal, `the transfer's row cannot be written (database unavailable?): ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'RowWriteError';
  }
}

export class RunnerRow {
  /**
   * `inserted = false`: the row is not in RUNNER yet and the first write inserts it, with every
   * staged change (the requested host's new row: one INSERT before the Request answer instead of
   * an INSERT and an UPDATE, or before the first pre-task). No write ever updates a row this
   * object did not insert: when the insert fails (a duplicate key), the next write tries it again.
   */
  constructor(
    private readonly runner: RunnerRepository,
    readonly record: TransferRecord,
    private inserted = true,
  ) {}

  get key(): TransferKey {
    const r = this.record;
    return { specialId: r.specialId, requester: r.requester, requested: r.requested, ownerReq: r.ownerReq };
  }

  /** Columns changed in memory and not written yet (see stage()), in the order they changed. */
  private pending: TransferStateChange | null = null;
  /** The state columns of the moves staged since the last write, as the state machine computed them. */
  private moved: StateChange | undefined = undefined;
  /** A write of the record's non-state columns is pending (saveAll() staged): it carries every staged column. */
  private pendingAll = false;

  /** The first write of this row that failed (RowWriteError): later writes are refused with it. */
  writeFailure: RowWriteError | null = null;

  /** When this object last wrote the row (ms since the epoch): keepFresh() writes only after a silence. */
  private lastWrite = Date.now();
  /** Writes of this row under way: a heartbeat never runs beside one. */
  private writing = 0;
  /** keepFresh()'s write under way: the row's own writes wait for it (no two writes of one row at once). */
  private beating: Promise<void> | null = null;

  /** True when a staged change waits for the next write. */
  get hasPending(): boolean {
    return this.pending !== null || this.pendingAll || !this.inserted;
  }

  /**
   * Applies `change` to the record without writing it: the next write carries it. Only for
   * transitions followed by more local work and then a write before any packet or task.
   */
  stage(change: DataChange): void {
    this.stageAny(change);
  }

  private stageAny(change: TransferStateChange): void {
    const stop = change.stop ?? new Date();
    // Object.assign, not object spreads: on Node 20 `{ ...a, ...b }` takes V8's slow path (2-20 µs
    // each, several per transfer; docs/performance-log.md 2026-11-27).
    Object.assign(this.record, change).stop = stop;
    // The pending object is this row's own until flush() hands it to the store.
    Object.assign((this.pending ??= {}), change).stop = stop;
  }

  /** Stages a write of the record's non-state columns (after tasks or the Request answer changed them in place). */
  stageAll(): void {
    this.record.stop = new Date();
    this.pendingAll = true;
  }

  /**
   * Runs one write of the row; a failure becomes this row's RowWriteError, and every later write
   * gets it at once (the record in memory is ahead of the row now: writing pieces of it later would
   * store a state no attempt had).
   */
  private async write(run: () => Promise<unknown>): Promise<void> {
    if (this.writeFailure !== null) throw this.writeFailure;
    this.writing++;
    try {
      if (this.beating !== null) await this.beating;
      await run();
      this.lastWrite = Date.now();
    } catch (err) {
      if (this.writeFailure === null) this.writeFailure = new RowWriteError(err);
      throw this.writeFailure;
    } finally {
      this.writing--;
    }
  }

  /**
   * Keeps the row's STOPTRANS fresh while long work runs without writes (tasks: an EXEC of five
   * minutes), so other processes see the transfer alive (alive.ts) and refuse orders they could not
   * carry out, never starting a second run (issue 35 item 2). A STOPTRANS-only write
   * (`runner.updateAlive`) once `everyMs` passed since this row's last write, none while other
   * writes come. A failed heartbeat is not the transfer's failure: its next own write tells.
   * Returns the stop, which waits for a heartbeat in flight (no write after it).
   */
  keepFresh(everyMs: number): () => Promise<void> {
    const beat = (): void => {
      if (this.beating !== null || this.writing > 0 || !this.inserted || this.writeFailure !== null || Date.now() - this.lastWrite < everyMs) return;
      const at = Date.now();
      this.beating = this.runner.updateAlive(this.key).then(() => {
        this.lastWrite = at;
      }, () => undefined).finally(() => {
        this.beating = null;
      });
    };
    const timer = setInterval(beat, Math.max(1, Math.floor(everyMs / 4)));
    timer.unref();
    return async () => {
      clearInterval(timer);
      await this.beating;
    };
  }

  /** Writes what is staged, in one statement; nothing when nothing is. */
  async flush(): Promise<void> {
    if (this.writeFailure !== null) throw this.writeFailure;
    if (!this.inserted) {
      await this.write(() => this.runner.insert(this.record));
      this.inserted = true;
      this.pendingAll = false;
      this.pending = null;
      this.moved = undefined;
    } else if (this.pendingAll || this.pending !== null) {
      // The store takes the state columns from `moved` only; the rest of `pending` (and the
      // record's, after saveAll()) are the non-state columns, the latest value of each.
      const fields: RowFields = this.pendingAll ? Object.assign(this.pending ?? {}, recordFields(this.record)) : (this.pending ?? {});
      const moved = this.moved;
      this.pendingAll = false;
      this.pending = null;
      this.moved = undefined;
      await this.write(() => this.runner.saveMoves(this.key, moved, fields));
    }
  }

  /** Applies `change` to the record and writes it with anything staged (STOPTRANS = now). */
  async set(change: DataChange): Promise<void> {
    this.stage(change);
    await this.flush();
  }

  /** Writes the record's non-state columns with what is staged (after tasks changed the record in place). */
  async saveAll(): Promise<void> {
    this.stageAll();
    await this.flush();
  }

  async saveRank(): Promise<void> {
    // RANK alone is the hot path of the data phase; with staged columns it joins their write.
    if (this.hasPending) await this.set({ rank: this.record.rank });
    else await this.write(() => this.runner.updateRank(this.key, this.record.rank));
  }

  /**
   * Writes RANK = `rank`, a checkpoint taken earlier, with what is staged, leaving the record's
   * rank (the data loop's, further on by now) as it is. Nothing is written when a saveAll() write
   * or the insert is pending: those carry the record's rank, which may point past synced data.
   */
  async saveRankAt(rank: number): Promise<void> {
    if (this.pendingAll || !this.inserted) return;
    if (this.pending === null) {
      await this.write(() => this.runner.updateRank(this.key, rank));
      return;
    }
    this.pending.rank = rank;
    await this.flush();
  }

  /**
   * A move of the state machine (state.ts): the columns it computes from the record's state,
   * written with anything staged, or staged only (`write = false`: transitions followed by more
   * local work and a write before any packet or task, see stage()). An illegal move throws
   * illegalTransition()'s error and changes nothing, in memory or in the row.
   */
  async move(m: TransferMove, extra: DataChange = {}, write = true): Promise<void> {
    const moved = transition(this.record, m);
    this.moved = mergeMoves(this.moved, moved);
    this.stageAny(Object.assign({}, moved, extra));
    if (write) await this.flush();
  }

  preTasksStart(stepIndex: number, write = true): Promise<void> {
    return this.move({ kind: 'preTasksStart', stepIndex }, {}, write);
  }

  preTasksDone(write = true): Promise<void> {
    return this.move({ kind: 'preTasksDone' }, {}, write);
  }

  /**
   * The data phase starts. Staged (`write = false`) it is written with the first RANK save or the
   * end of the data, whichever comes first: a saved RANK above 0 then always comes with
   * TRANSFERTASK, and a restart before that restarts at rank 0, as it would anyway.
   */
  transferStart(write = true): Promise<void> {
    return this.move({ kind: 'transferStart' }, { rank: this.record.rank }, write);
  }

  postTasksStart(stepIndex: number, write = true): Promise<void> {
    return this.move({ kind: 'postTasksStart', stepIndex }, { rank: this.record.rank }, write);
  }

  postTasksDone(write = true): Promise<void> {
    return this.move({ kind: 'postTasksDone' }, {}, write);
  }

  allDone(): Promise<void> {
    return this.move({ kind: 'allDone' });
  }

  /**
   * Error end: GLOBALLASTSTEP stays as the restart point. A local shutdown leaves the row
   * INTERRUPTED, which the next start resubmits (database.md §6). `retriedByCaller`: a requester's
   * end its caller may retry (a lost connection...) is written TOSUBMIT, the caller then writing
   * the retry's time or INERROR, so the row never shows a transient INERROR in between.
   */
  inError(code: ErrorCodeInfo, rescheduled = false, retriedByCaller = false): Promise<void> {
    return this.move({ kind: 'inError', code, rescheduled, retriedByCaller }, { rank: this.record.rank });
  }
}

/**
 * Decides when the data phase saves RANK: every `everyBlocks` blocks or `everyMs`, whichever comes
 * first. `checkpoint` runs before the save (the receiver syncs its file there, so a saved rank
 * never points past data that is not on disk).
 */
export class RankCheckpoints {
  private blocks = 0;
  private last = Date.now();

  constructor(
    private readonly save: () => Promise<void>,
    private readonly everyBlocks = 64,
    private readonly everyMs = 1000,
  ) {}

  /** Counts one block; resolves after a save when one is due. */
  async tick(): Promise<boolean> {
    this.blocks++;
    const now = Date.now();
    if (this.blocks < this.everyBlocks && now - this.last < this.everyMs) return false;
    this.blocks = 0;
    this.last = now;
    await this.save();
    return true;
  }
}
