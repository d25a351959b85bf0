/**
 * The RUNNER row of one transfer on this host and its state transitions (database.md §6.1). The
 * record object in memory is the one tasks see; each transition changes it and writes the changed
 * columns before the caller sends the packet that depends on it (design.md §4). RANK is written at
 * most every N blocks or every second during the data phase (design.md §5).
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferKey, type TransferRecord } from '../model/transfer.js';
import type { RunnerRepository, TransferStateChange } from '../store/index.js';

export class RunnerRow {
  constructor(
    private readonly runner: RunnerRepository,
    readonly record: TransferRecord,
  ) {}

  get key(): TransferKey {
    const r = this.record;
    return { specialId: r.specialId, requester: r.requester, requested: r.requested, ownerReq: r.ownerReq };
  }

  /** Applies `change` to the record and writes it (STOPTRANS = now). */
  async set(change: TransferStateChange): Promise<void> {
    const stop = change.stop ?? new Date();
    Object.assign(this.record, change, { stop });
    await this.runner.updateState(this.key, { ...change, stop });
  }

  /** Writes every column (after tasks changed the record in place). */
  async saveAll(): Promise<void> {
    this.record.stop = new Date();
    await this.runner.update(this.record);
  }

  async saveRank(): Promise<void> {
    await this.runner.updateRank(this.key, this.record.rank);
  }

  preTasksStart(stepIndex: number): Promise<void> {
    return this.set({ globalStep: TaskStep.PRETASK, globalLastStep: TaskStep.PRETASK, step: stepIndex, stepStatus: ErrorCode.Running, infoStatus: ErrorCode.InitOk, updatedInfo: UpdatedInfo.RUNNING });
  }

  preTasksDone(): Promise<void> {
    return this.set({ stepStatus: ErrorCode.PreProcessingOk, infoStatus: this.keepWarning(ErrorCode.PreProcessingOk) });
  }

  transferStart(): Promise<void> {
    return this.set({ globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, stepStatus: ErrorCode.Running, infoStatus: this.keepWarning(ErrorCode.PreProcessingOk), updatedInfo: UpdatedInfo.RUNNING, rank: this.record.rank });
  }

  postTasksStart(stepIndex: number): Promise<void> {
    return this.set({ globalStep: TaskStep.POSTTASK, globalLastStep: TaskStep.POSTTASK, step: stepIndex, stepStatus: ErrorCode.Running, infoStatus: this.keepWarning(ErrorCode.TransferOk), rank: this.record.rank, updatedInfo: UpdatedInfo.RUNNING });
  }

  postTasksDone(): Promise<void> {
    return this.set({ stepStatus: ErrorCode.PostProcessingOk, infoStatus: this.keepWarning(ErrorCode.PostProcessingOk) });
  }

  allDone(): Promise<void> {
    const info = this.record.infoStatus === ErrorCode.Warning ? ErrorCode.Warning : ErrorCode.CompleteOk;
    return this.set({ globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, step: 0, stepStatus: ErrorCode.CompleteOk, infoStatus: info, updatedInfo: UpdatedInfo.DONE });
  }

  /**
   * Error end: GLOBALLASTSTEP stays as the restart point. A local shutdown leaves the row
   * INTERRUPTED, which the next start resubmits (database.md §6).
   */
  inError(code: ErrorCodeInfo, rescheduled = false): Promise<void> {
    const updatedInfo = rescheduled ? UpdatedInfo.TOSUBMIT : code === ErrorCode.Shutdown ? UpdatedInfo.INTERRUPTED : UpdatedInfo.INERROR;
    return this.set({ globalStep: TaskStep.ERRORTASK, step: 0, stepStatus: code, infoStatus: code, rank: this.record.rank, updatedInfo });
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
