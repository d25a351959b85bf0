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
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferKey, type TransferRecord } from '../model/transfer.js';
import type { RunnerRepository, TransferStateChange } from '../store/index.js';

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

  /** Columns changed in memory and not written yet (see stage()). */
  private pending: TransferStateChange | null = null;
  /** A whole-row write is pending (saveAll() staged): it carries every staged column. */
  private pendingAll = false;

  /** True when a staged change waits for the next write. */
  get hasPending(): boolean {
    return this.pending !== null || this.pendingAll || !this.inserted;
  }

  /**
   * Applies `change` to the record without writing it: the next write carries it. Only for
   * transitions followed by more local work and then a write before any packet or task.
   */
  stage(change: TransferStateChange): void {
    const stop = change.stop ?? new Date();
    Object.assign(this.record, change, { stop });
    this.pending = { ...this.pending, ...change, stop };
  }

  /** Stages a whole-row write (after tasks or the Request answer changed the record in place). */
  stageAll(): void {
    this.record.stop = new Date();
    this.pendingAll = true;
  }

  /** Writes what is staged, in one statement; nothing when nothing is. */
  async flush(): Promise<void> {
    if (!this.inserted) {
      await this.runner.insert(this.record);
      this.inserted = true;
      this.pendingAll = false;
      this.pending = null;
    } else if (this.pendingAll) {
      this.pendingAll = false;
      this.pending = null;
      await this.runner.update(this.record);
    } else if (this.pending !== null) {
      const change = this.pending;
      this.pending = null;
      await this.runner.updateState(this.key, change);
    }
  }

  /** Applies `change` to the record and writes it with anything staged (STOPTRANS = now). */
  async set(change: TransferStateChange): Promise<void> {
    this.stage(change);
    await this.flush();
  }

  /** Writes every column (after tasks changed the record in place). */
  async saveAll(): Promise<void> {
    this.stageAll();
    await this.flush();
  }

  async saveRank(): Promise<void> {
    // RANK alone is the hot path of the data phase; with staged columns it joins their write.
    if (this.hasPending) await this.set({ rank: this.record.rank });
    else await this.runner.updateRank(this.key, this.record.rank);
  }

  /**
   * Writes RANK = `rank`, a checkpoint taken earlier, with what is staged, leaving the record's
   * rank (the data loop's, further on by now) as it is. Nothing is written when a whole-row write
   * or the insert is pending: those carry the record's rank, which may point past synced data.
   */
  async saveRankAt(rank: number): Promise<void> {
    if (this.pendingAll || !this.inserted) return;
    if (this.pending === null) {
      await this.runner.updateRank(this.key, rank);
      return;
    }
    this.pending = { ...this.pending, rank };
    await this.flush();
  }

  // The step transitions below take `write = false` to stage instead of writing (see stage()).

  preTasksStart(stepIndex: number, write = true): Promise<void> {
    return this.apply({ globalStep: TaskStep.PRETASK, globalLastStep: TaskStep.PRETASK, step: stepIndex, stepStatus: ErrorCode.Running, infoStatus: ErrorCode.InitOk, updatedInfo: UpdatedInfo.RUNNING }, write);
  }

  preTasksDone(write = true): Promise<void> {
    return this.apply({ stepStatus: ErrorCode.PreProcessingOk, infoStatus: this.keepWarning(ErrorCode.PreProcessingOk) }, write);
  }

  /**
   * The data phase starts. Staged (`write = false`) it is written with the first RANK save or the
   * end of the data, whichever comes first: a saved RANK above 0 then always comes with
   * TRANSFERTASK, and a restart before that restarts at rank 0, as it would anyway.
   */
  transferStart(write = true): Promise<void> {
    return this.apply({ globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, stepStatus: ErrorCode.Running, infoStatus: this.keepWarning(ErrorCode.PreProcessingOk), updatedInfo: UpdatedInfo.RUNNING, rank: this.record.rank }, write);
  }

  postTasksStart(stepIndex: number, write = true): Promise<void> {
    return this.apply({ globalStep: TaskStep.POSTTASK, globalLastStep: TaskStep.POSTTASK, step: stepIndex, stepStatus: ErrorCode.Running, infoStatus: this.keepWarning(ErrorCode.TransferOk), rank: this.record.rank, updatedInfo: UpdatedInfo.RUNNING }, write);
  }

  postTasksDone(write = true): Promise<void> {
    return this.apply({ stepStatus: ErrorCode.PostProcessingOk, infoStatus: this.keepWarning(ErrorCode.PostProcessingOk) }, write);
  }

  private apply(change: TransferStateChange, write: boolean): Promise<void> {
    if (write) return this.set(change);
    this.stage(change);
    return Promise.resolve();
  }

  allDone(): Promise<void> {
    const info = this.record.infoStatus === ErrorCode.Warning ? ErrorCode.Warning : ErrorCode.CompleteOk;
    return this.set({ globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, step: 0, stepStatus: ErrorCode.CompleteOk, infoStatus: info, updatedInfo: UpdatedInfo.DONE });
  }

  /**
   * Error end: GLOBALLASTSTEP stays as the restart point. A local shutdown leaves the row
   * INTERRUPTED, which the next start resubmits (database.md §6). `retriedByCaller`: a requester's
   * end its caller may retry (a lost connection...) is written TOSUBMIT, the caller then writing
   * the retry's time or INERROR, so the row never shows a transient INERROR in between.
   */
  inError(code: ErrorCodeInfo, rescheduled = false, retriedByCaller = false): Promise<void> {
    const updatedInfo = rescheduled || retriedByCaller ? UpdatedInfo.TOSUBMIT : code === ErrorCode.Shutdown ? UpdatedInfo.INTERRUPTED : UpdatedInfo.INERROR;
    // Rescheduled: the step shows the error tasks' result (Warning), INFOSTATUS keeps the error (database.md §6.1).
    const stepStatus = rescheduled ? ErrorCode.Warning : code;
    return this.set({ globalStep: TaskStep.ERRORTASK, step: 0, stepStatus, infoStatus: code, rank: this.record.rank, updatedInfo });
  }

  /** A warning from a task stays visible in INFOSTATUS until the end (tasks.md §7). */
  private keepWarning(code: ErrorCodeInfo): ErrorCodeInfo {
    return this.record.infoStatus === ErrorCode.Warning ? ErrorCode.Warning : code;
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
