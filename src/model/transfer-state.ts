/**
 * The transfer's state machine (database.md §6.1, issue 20 item 1): the legal moves of a RUNNER
 * row over GLOBALSTEP/GLOBALLASTSTEP x STEPSTATUS (+ INFOSTATUS) x UPDATEDINFO, and the columns
 * each move writes. This module is the only code that computes those columns. It is pure and sits
 * in model (layer 1) so that the store, the one writer of RUNNER (issue 33 item 2, decision 0047),
 * checks every move itself: `runner.move(row, move, fields)` asks {@link transition} and writes
 * what it returns; the engine's RunnerRow (transfer/persistence.ts) computes its moves in memory
 * here and hands the store the {@link StateChange} they made. A move that is not legal from the
 * row's current state throws {@link illegalTransition}'s error before anything is written.
 *
 * The state a move is checked against is the row's: `globalStep`, `globalLastStep`,
 * `updatedInfo` (and `retrieveMode`/`rank` for the restart point). The table {@link MOVES} is the
 * reference: each move names the states it is legal from, and `apply` gives the columns it sets.
 */
import { ErrorCode, type ErrorCodeInfo } from './error-code.js';
import { failedRowStatus } from './failure-status.js';
import { R66Error } from './r66-error.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from './transfer.js';

/**
 * The columns of a RUNNER row a write may change (database.md §6.1); the key columns, IDRULE,
 * RETRIEVEMODE never change after the insert.
 */
export interface TransferStateChange {
  globalStep?: TaskStep;
  globalLastStep?: TaskStep;
  step?: number;
  rank?: number;
  blockSize?: number;
  /** MODETRANS: a task may change it (the S3 tasks restore the rule's mode). */
  mode?: number;
  updatedInfo?: UpdatedInfo;
  stepStatus?: ErrorCodeInfo;
  infoStatus?: ErrorCodeInfo;
  isMoved?: boolean;
  filename?: string;
  originalName?: string;
  fileInfo?: string;
  transferInfo?: string;
  start?: Date;
  /** Defaults to now: every write stamps STOPTRANS. */
  stop?: Date;
}

/** The rows a hand-back takes (the row by row form of the server start, store/bulk-moves.ts SERVER_START). */
export const HAND_BACK_FROM: readonly UpdatedInfo[] = [UpdatedInfo.RUNNING, UpdatedInfo.INTERRUPTED];

/** The columns a move is checked against (a stored row, or the engine's record in memory). */
export type TransferState = Pick<TransferRecord, 'globalStep' | 'globalLastStep' | 'updatedInfo' | 'rank' | 'retrieveMode' | 'infoStatus'>;

/** The columns only this module computes. */
export type StateColumn = 'globalStep' | 'globalLastStep' | 'stepStatus' | 'updatedInfo';

/**
 * A change of the state columns, as computed here: only {@link transition} and {@link mergeMoves}
 * make one (the brand keeps hand-made changes out of the store's `saveMoves`, and
 * test/store/runner-writers.test.ts refuses a cast to it outside this module).
 */
export type StateChange = TransferStateChange & { readonly __state: true };

/**
 * The columns that are not the state's, which a move may carry along (`runner.move(row, move,
 * fields)`) and the engine's RunnerRow writes between moves: the state columns change only
 * through a move.
 */
export type RowFields = Omit<TransferStateChange, StateColumn>;

/** Every move of a transfer's row. */
export type TransferMove =
  /** A requester's attempt begins (the scheduler's or a direct one): back to the restart point. */
  | { kind: 'attemptStart' }
  /** The requested host resumes its existing row for a partner's Request. */
  | { kind: 'requestedResume' }
  | { kind: 'preTasksStart'; stepIndex: number }
  | { kind: 'preTasksDone' }
  | { kind: 'transferStart' }
  | { kind: 'postTasksStart'; stepIndex: number }
  | { kind: 'postTasksDone' }
  | { kind: 'allDone' }
  /** The error tasks start (run once per attempt). */
  | { kind: 'errorTasksStart'; code: ErrorCodeInfo }
  /** Error end of a session: `rescheduled` by a RESCHEDULE task, `retriedByCaller` (requester, retryable code). */
  | { kind: 'inError'; code: ErrorCodeInfo; rescheduled?: boolean; retriedByCaller?: boolean }
  /** A requester's attempt that never reached a session (no rule, no file, no connection). */
  | { kind: 'failedBeforeSession'; code: ErrorCodeInfo; retry: boolean }
  /** The caller retries later (`at`): the row waits for the scheduler again. */
  | { kind: 'retryLater'; at: Date; code?: ErrorCodeInfo }
  /** The caller gave up retrying. */
  | { kind: 'givenUp'; code?: ErrorCodeInfo }
  /** The scheduler found a due row where this host is only the requested side. */
  | { kind: 'notRequester' }
  /** The scheduler takes a due row this host requests (a cluster member's claim, before the attempt). */
  | { kind: 'dueStart' }
  /** A row left RUNNING or INTERRUPTED goes back to the scheduler (server start, a cluster member's hand-back or take-over). */
  | { kind: 'handBack'; at?: Date }
  /** Stop or cancel of a row that is not running on this host. */
  | { kind: 'stopRecord' }
  | { kind: 'cancelRecord' }
  /** Back to the restart point for the scheduler at `at` (restart, resubmit). */
  | { kind: 'restart'; at: Date }
  /** A restart asked for a finished transfer: only INFOSTATUS says so (`Q`). */
  | { kind: 'alreadyFinished' }
  /** History export's clean (REST v2 `/v2/server/logs?clean=true`): a row complete and OK is marked DONE. */
  | { kind: 'clean' }
  /**
   * REST v1's table editor (`/transfers` create and update, rest-v1.md §11.1, role SYSTEM): the
   * state columns the request gives, and UPDATEDINFO TOSUBMIT (both submit the record).
   */
  | { kind: 'edit'; set: StateEdit };

/** The state columns an edit (REST v1 `/transfers`) may give; absent: unchanged. */
export type StateEdit = Partial<Pick<TransferRecord, 'globalStep' | 'globalLastStep' | 'step' | 'stepStatus' | 'infoStatus'>>;

export type MoveKind = TransferMove['kind'];

/** A move refused from the row's current state (nothing was written): the domain error, `details.reason` illegalTransition. */
export function illegalTransition(move: MoveKind, from: TransferState, code: ErrorCodeInfo = ErrorCode.IncorrectCommand, to?: string): R66Error {
  return new R66Error(code, `transfer state: ${move}${to === undefined ? '' : ` to ${to}`} is not allowed from ${describeState(from)}`, {
    details: { reason: 'illegalTransition', move, globalStep: from.globalStep, globalLastStep: from.globalLastStep, updatedInfo: from.updatedInfo },
  });
}

/** True for a refusal made by {@link illegalTransition}. */
export function isIllegalTransition(err: unknown): err is R66Error {
  return err instanceof R66Error && err.details.reason === 'illegalTransition';
}

/** `GLOBALSTEP n (NAME) / GLOBALLASTSTEP m, UPDATEDINFO u (NAME)`: for messages and test tables. */
export function describeState(s: TransferState): string {
  return `step ${TaskStep[s.globalStep] ?? s.globalStep}/${TaskStep[s.globalLastStep] ?? s.globalLastStep}, ${UpdatedInfo[s.updatedInfo] ?? s.updatedInfo}`;
}

/** The columns an edit gives, for its refusal: `GLOBALSTEP 1, GLOBALLASTSTEP 3`. */
function describeEdit(e: StateEdit): string {
  const parts: string[] = [];
  if (e.globalStep !== undefined) parts.push(`GLOBALSTEP ${e.globalStep}`);
  if (e.globalLastStep !== undefined) parts.push(`GLOBALLASTSTEP ${e.globalLastStep}`);
  if (e.step !== undefined) parts.push(`STEP ${e.step}`);
  if (e.stepStatus !== undefined) parts.push(`STEPSTATUS ${e.stepStatus.char}`);
  if (e.infoStatus !== undefined) parts.push(`INFOSTATUS ${e.infoStatus.char}`);
  return parts.length === 0 ? 'UPDATEDINFO TOSUBMIT' : parts.join(', ');
}

/** True when the row is finished for good (complete): only a `Q` mark may still change it. */
export function isFinished(s: Pick<TransferState, 'globalStep' | 'globalLastStep' | 'updatedInfo'>): boolean {
  return s.updatedInfo === UpdatedInfo.DONE || s.globalStep === TaskStep.ALLDONETASK;
}

const notFinished = (s: TransferState): boolean => !isFinished(s) && s.globalLastStep !== TaskStep.ALLDONETASK;
const stepIn = (...steps: TaskStep[]) => (s: TransferState): boolean => steps.includes(s.globalStep) && s.updatedInfo !== UpdatedInfo.DONE;

/** A warning from a task stays visible in INFOSTATUS until the end (tasks.md §7). */
function keepWarning(s: TransferState, code: ErrorCodeInfo): ErrorCodeInfo {
  return s.infoStatus === ErrorCode.Warning ? ErrorCode.Warning : code;
}

/** The codes STEPSTATUS/INFOSTATUS show at each restart point (database.md §6.1 "Restart"). */
export function restartStatus(step: TaskStep): ErrorCodeInfo {
  switch (step) {
    case TaskStep.PRETASK: return ErrorCode.InitOk;
    case TaskStep.TRANSFERTASK: return ErrorCode.PreProcessingOk;
    case TaskStep.POSTTASK: return ErrorCode.TransferOk;
    default: return ErrorCode.Unknown;
  }
}

/**
 * Where a transfer resumes (the one place that computes it): the step is GLOBALLASTSTEP (a row
 * that never got past the error or completion steps restarts from the beginning); the rank is
 * kept in the data phase, lowered by `gapRestart` on a receiver (its last blocks may not have
 * reached the disk; never below 1 once data was received), 0 before it; `offeredRank` (the
 * partner's rank in its Request) caps it; through modes always restart at 0.
 */
export function restartPoint(s: Pick<TransferState, 'globalLastStep' | 'rank'>, opts: { isSender: boolean; gapRestart: number; offeredRank?: number; through?: boolean }): { step: TaskStep; rank: number } {
  const step = s.globalLastStep >= TaskStep.PRETASK && s.globalLastStep <= TaskStep.POSTTASK ? s.globalLastStep : TaskStep.NOTASK;
  let rank = s.rank;
  if (!opts.isSender && step === TaskStep.TRANSFERTASK && rank > 0) rank = Math.max(1, rank - opts.gapRestart);
  if (step < TaskStep.TRANSFERTASK || opts.through === true) rank = 0;
  if (opts.offeredRank !== undefined) rank = Math.min(rank, opts.offeredRank);
  return { step, rank: Math.max(0, rank) };
}

interface MoveRule<K extends MoveKind> {
  /** In words, for the documentation and the refusal tables of the tests. */
  readonly from: string;
  /** `m`: the move, when its payload decides too (edit); isLegal() asks without it. */
  readonly legal: (s: TransferState, m?: Extract<TransferMove, { kind: K }>) => boolean;
  readonly apply: (s: TransferState, m: Extract<TransferMove, { kind: K }>) => TransferStateChange;
  /** The code of the refusal (IncorrectCommand unless a more precise one exists). */
  readonly refusal?: (s: TransferState) => ErrorCodeInfo;
}

type MoveTable = { readonly [K in MoveKind]: MoveRule<K> };

const finishedRefusal = (s: TransferState): ErrorCodeInfo => (isFinished(s) ? ErrorCode.QueryAlreadyFinished : ErrorCode.IncorrectCommand);

/** The legal moves (database.md §6.1). */
export const MOVES: MoveTable = {
  attemptStart: {
    from: 'any state but finished',
    legal: notFinished,
    apply: (s) => ({ updatedInfo: UpdatedInfo.RUNNING, infoStatus: ErrorCode.Running, globalStep: s.globalLastStep }),
    refusal: finishedRefusal,
  },
  requestedResume: {
    from: 'any state but finished',
    legal: notFinished,
    apply: (s) => ({ updatedInfo: UpdatedInfo.RUNNING, globalStep: s.globalLastStep }),
    refusal: finishedRefusal,
  },
  preTasksStart: {
    from: 'GLOBALSTEP NOTASK or PRETASK, restart point at or before the pre-tasks',
    legal: (s) => stepIn(TaskStep.NOTASK, TaskStep.PRETASK)(s) && s.globalLastStep <= TaskStep.PRETASK,
    apply: (_s, m) => ({ globalStep: TaskStep.PRETASK, globalLastStep: TaskStep.PRETASK, step: m.stepIndex, stepStatus: ErrorCode.Running, infoStatus: ErrorCode.InitOk, updatedInfo: UpdatedInfo.RUNNING }),
  },
  preTasksDone: {
    from: 'GLOBALSTEP PRETASK',
    legal: stepIn(TaskStep.PRETASK),
    apply: (s) => ({ stepStatus: ErrorCode.PreProcessingOk, infoStatus: keepWarning(s, ErrorCode.PreProcessingOk) }),
  },
  transferStart: {
    from: 'GLOBALSTEP PRETASK or TRANSFERTASK (a resumed data phase)',
    legal: stepIn(TaskStep.PRETASK, TaskStep.TRANSFERTASK),
    apply: (s) => ({ globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, stepStatus: ErrorCode.Running, infoStatus: keepWarning(s, ErrorCode.PreProcessingOk), updatedInfo: UpdatedInfo.RUNNING }),
  },
  postTasksStart: {
    from: 'GLOBALSTEP TRANSFERTASK or POSTTASK (resumed post-tasks)',
    legal: stepIn(TaskStep.TRANSFERTASK, TaskStep.POSTTASK),
    apply: (s, m) => ({ globalStep: TaskStep.POSTTASK, globalLastStep: TaskStep.POSTTASK, step: m.stepIndex, stepStatus: ErrorCode.Running, infoStatus: keepWarning(s, ErrorCode.TransferOk), updatedInfo: UpdatedInfo.RUNNING }),
  },
  postTasksDone: {
    from: 'GLOBALSTEP POSTTASK',
    legal: stepIn(TaskStep.POSTTASK),
    apply: (s) => ({ stepStatus: ErrorCode.PostProcessingOk, infoStatus: keepWarning(s, ErrorCode.PostProcessingOk) }),
  },
  allDone: {
    // Normally after the post-tasks; also earlier when the partner answers that it already has
    // the whole file (QueryAlreadyFinished to a sender, r66-protocol.md §9.7).
    from: 'GLOBALSTEP NOTASK to POSTTASK',
    legal: stepIn(TaskStep.NOTASK, TaskStep.PRETASK, TaskStep.TRANSFERTASK, TaskStep.POSTTASK),
    apply: (s) => ({ globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, step: 0, stepStatus: ErrorCode.CompleteOk, infoStatus: s.infoStatus === ErrorCode.Warning ? ErrorCode.Warning : ErrorCode.CompleteOk, updatedInfo: UpdatedInfo.DONE }),
  },
  errorTasksStart: {
    from: 'GLOBALSTEP NOTASK to POSTTASK (not finished, error tasks not started)',
    legal: (s) => notFinished(s) && s.globalStep !== TaskStep.ERRORTASK,
    apply: (_s, m) => ({ globalStep: TaskStep.ERRORTASK, step: 0, infoStatus: m.code }),
    refusal: finishedRefusal,
  },
  inError: {
    // GLOBALLASTSTEP stays: it is the restart point.
    from: 'any state but finished',
    legal: notFinished,
    // The status columns derive from the error's code (failure-status.ts).
    apply: (_s, m) => ({ globalStep: TaskStep.ERRORTASK, step: 0, ...failedRowStatus(m.code, { rescheduled: m.rescheduled, retried: m.retriedByCaller }) }),
    refusal: finishedRefusal,
  },
  failedBeforeSession: {
    from: 'any state but finished',
    legal: notFinished,
    apply: (_s, m) => ({ ...failedRowStatus(m.code, { retried: m.retry, beforeSession: true }), ...(m.retry ? {} : { globalStep: TaskStep.ERRORTASK }) }),
    refusal: finishedRefusal,
  },
  retryLater: {
    from: 'any state but finished',
    legal: notFinished,
    apply: (_s, m) => ({ updatedInfo: UpdatedInfo.TOSUBMIT, start: m.at, ...(m.code ? { infoStatus: m.code } : {}) }),
    refusal: finishedRefusal,
  },
  givenUp: {
    from: 'any state but finished',
    legal: notFinished,
    apply: (_s, m) => ({ updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, ...(m.code ? { infoStatus: m.code } : {}) }),
    refusal: finishedRefusal,
  },
  notRequester: {
    from: 'UPDATEDINFO TOSUBMIT',
    legal: (s) => s.updatedInfo === UpdatedInfo.TOSUBMIT,
    apply: () => ({ updatedInfo: UpdatedInfo.INTERRUPTED }),
  },
  dueStart: {
    from: 'UPDATEDINFO TOSUBMIT',
    legal: (s) => s.updatedInfo === UpdatedInfo.TOSUBMIT && notFinished(s),
    apply: () => ({ updatedInfo: UpdatedInfo.RUNNING, infoStatus: ErrorCode.Running }),
  },
  handBack: {
    // The row by row form of SERVER_START (the steps and the rank stay: the next attempt resumes).
    from: 'UPDATEDINFO RUNNING or INTERRUPTED',
    legal: (s) => HAND_BACK_FROM.includes(s.updatedInfo),
    apply: (_s, m) => ({ updatedInfo: UpdatedInfo.TOSUBMIT, ...(m.at ? { start: m.at } : {}) }),
  },
  stopRecord: {
    from: 'any state but finished',
    legal: notFinished,
    apply: () => ({ updatedInfo: UpdatedInfo.INERROR, infoStatus: ErrorCode.StoppedTransfer, stepStatus: ErrorCode.StoppedTransfer, globalStep: TaskStep.ERRORTASK }),
    refusal: finishedRefusal,
  },
  cancelRecord: {
    from: 'any state but finished',
    legal: notFinished,
    apply: () => ({ updatedInfo: UpdatedInfo.INERROR, infoStatus: ErrorCode.CanceledTransfer, stepStatus: ErrorCode.CanceledTransfer, globalStep: TaskStep.ERRORTASK, rank: 0 }),
    refusal: finishedRefusal,
  },
  restart: {
    // RUNNING rows are refused by the caller when the transfer runs on this host; a row left
    // RUNNING by a crash may be restarted (the next start would resubmit it anyway).
    from: 'any state but finished',
    legal: notFinished,
    apply: (s, m) => {
      const { step } = restartPoint(s, { isSender: true, gapRestart: 0 });
      const status = restartStatus(step);
      // The rank is kept: the attempt that resumes lowers it for a receiver (restartPoint), once.
      return { globalStep: step, globalLastStep: step, stepStatus: status, infoStatus: status, updatedInfo: UpdatedInfo.TOSUBMIT, start: m.at };
    },
    refusal: finishedRefusal,
  },
  alreadyFinished: {
    from: 'finished (GLOBALSTEP ALLDONETASK or UPDATEDINFO DONE)',
    legal: isFinished,
    apply: () => ({ infoStatus: ErrorCode.QueryAlreadyFinished }),
  },
  clean: {
    from: 'GLOBALSTEP ALLDONETASK with INFOSTATUS CompleteOk, UPDATEDINFO not DONE',
    legal: (s) => s.globalStep === TaskStep.ALLDONETASK && s.infoStatus === ErrorCode.CompleteOk && s.updatedInfo !== UpdatedInfo.DONE,
    apply: () => ({ updatedInfo: UpdatedInfo.DONE }),
  },
  edit: {
    // A table editor may set any consistent state of a row no transfer writes now: GLOBALLASTSTEP
    // is a restart point (never ERRORTASK), GLOBALSTEP never behind it, STEP at least -1; the
    // steps of a finished row stay (a restart of a finished transfer is refused too).
    from: 'not RUNNING; the result: GLOBALLASTSTEP 0 to 4, GLOBALSTEP at or after it, STEP >= -1, a finished row keeps its steps',
    legal: (s, m) => {
      if (s.updatedInfo === UpdatedInfo.RUNNING) return false;
      if (m === undefined) return true;
      const step = m.set.globalStep ?? s.globalStep;
      const last = m.set.globalLastStep ?? s.globalLastStep;
      if (last < TaskStep.NOTASK || last > TaskStep.ALLDONETASK || step < last || step > TaskStep.ERRORTASK) return false;
      if (m.set.step !== undefined && (!Number.isInteger(m.set.step) || m.set.step < -1)) return false;
      return !isFinished(s) || (step === s.globalStep && last === s.globalLastStep);
    },
    apply: (_s, m) => ({ ...m.set, updatedInfo: UpdatedInfo.TOSUBMIT }),
    refusal: (s) => (s.updatedInfo === UpdatedInfo.RUNNING ? ErrorCode.QueryStillRunning : isFinished(s) ? ErrorCode.QueryAlreadyFinished : ErrorCode.IncorrectCommand),
  },
};

/** True when `move` is legal from `state` (a kind alone: whatever its payload, for the moves whose payload decides too). */
export function isLegal(state: TransferState, move: MoveKind | TransferMove): boolean {
  if (typeof move === 'string') return MOVES[move].legal(state);
  return (MOVES[move.kind] as MoveRule<MoveKind>).legal(state, move as never);
}

/**
 * The columns `move` writes from `state`, or illegalTransition()'s error when it is not legal. The
 * store writes the change (`runner.move()`, or `runner.saveMoves()` for the engine's RunnerRow),
 * and nothing else writes the state columns.
 */
export function transition(state: TransferState, move: TransferMove): StateChange {
  const rule = MOVES[move.kind] as MoveRule<MoveKind>;
  if (!rule.legal(state, move as never)) {
    throw illegalTransition(move.kind, state, rule.refusal?.(state) ?? ErrorCode.IncorrectCommand, move.kind === 'edit' ? describeEdit(move.set) : undefined);
  }
  return rule.apply(state, move as never) as StateChange;
}

/**
 * The state columns of a new row (database.md §6.1 "Row created by the requester", or the
 * requested host's new row): steps 0/0, STEP -1, statuses `-`.
 */
export function initialState(updatedInfo: UpdatedInfo.UNKNOWN | UpdatedInfo.TOSUBMIT | UpdatedInfo.RUNNING): Pick<TransferRecord, 'globalStep' | 'globalLastStep' | 'step' | 'rank' | 'stepStatus' | 'infoStatus' | 'updatedInfo'> {
  return { globalStep: TaskStep.NOTASK, globalLastStep: TaskStep.NOTASK, step: -1, rank: 0, stepStatus: ErrorCode.Unknown, infoStatus: ErrorCode.Unknown, updatedInfo };
}

/**
 * Two changes the state machine computed one after the other (the engine stages several moves and
 * writes them in one statement): the later one's columns win.
 */
export function mergeMoves(earlier: StateChange | undefined, later: StateChange): StateChange {
  return earlier === undefined ? later : (Object.assign({}, earlier, later) as StateChange);
}
