import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { R66Error } from '../../src/model/r66-error.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { FINISHED_DONE, SERVER_START, bulkMoveSql, inBulkMove } from '../../src/store/bulk-moves.js';
import { isIllegalTransition, MOVES, initialState, isLegal, restartPoint, transition, type MoveKind, type TransferMove, type TransferState } from '../../src/transfer/state.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileRunnerRepository } from '../../src/store/nodb/file-runner.js';
import type { RunnerRepository } from '../../src/store/index.js';
import { openRecordStore } from '../helpers/record-store.js';
import { RECORD_OWNER, transferRecord } from '../helpers/transfer-record.js';

// The transfer's state machine (database.md §6.1): every legal move and the columns it writes, a
// table of illegal ones refused, and the restart point computed in one function.

function state(globalStep: TaskStep, globalLastStep: TaskStep, updatedInfo: UpdatedInfo, over: Partial<TransferState> = {}): TransferState {
  return { globalStep, globalLastStep, updatedInfo, rank: 0, retrieveMode: true, infoStatus: ErrorCode.Unknown, ...over };
}

const { NOTASK, PRETASK, TRANSFERTASK, POSTTASK, ALLDONETASK, ERRORTASK } = TaskStep;
const { TOSUBMIT, RUNNING, INERROR, DONE, INTERRUPTED } = UpdatedInfo;
const at = new Date(2026, 10, 27, 8, 0, 0);

const legal: Array<[string, TransferState, TransferMove, Record<string, unknown>]> = [
  ['attempt of a new row', state(NOTASK, NOTASK, TOSUBMIT), { kind: 'attemptStart' }, { globalStep: NOTASK, updatedInfo: RUNNING, infoStatus: ErrorCode.Running }],
  ['attempt of a row in error at the data phase', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'attemptStart' }, { globalStep: TRANSFERTASK, updatedInfo: RUNNING }],
  ['requested side resumes', state(ERRORTASK, POSTTASK, INERROR), { kind: 'requestedResume' }, { globalStep: POSTTASK, updatedInfo: RUNNING }],
  ['pre-tasks start', state(NOTASK, NOTASK, RUNNING), { kind: 'preTasksStart', stepIndex: 0 }, { globalStep: PRETASK, globalLastStep: PRETASK, step: 0, stepStatus: ErrorCode.Running, infoStatus: ErrorCode.InitOk, updatedInfo: RUNNING }],
  ['pre-tasks done', state(PRETASK, PRETASK, RUNNING), { kind: 'preTasksDone' }, { stepStatus: ErrorCode.PreProcessingOk, infoStatus: ErrorCode.PreProcessingOk }],
  ['pre-tasks done keeps a warning', state(PRETASK, PRETASK, RUNNING, { infoStatus: ErrorCode.Warning }), { kind: 'preTasksDone' }, { infoStatus: ErrorCode.Warning }],
  ['data phase starts', state(PRETASK, PRETASK, RUNNING), { kind: 'transferStart' }, { globalStep: TRANSFERTASK, globalLastStep: TRANSFERTASK, stepStatus: ErrorCode.Running, updatedInfo: RUNNING }],
  ['data phase resumes', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'transferStart' }, { globalStep: TRANSFERTASK }],
  ['post-tasks start', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'postTasksStart', stepIndex: 0 }, { globalStep: POSTTASK, globalLastStep: POSTTASK, infoStatus: ErrorCode.TransferOk }],
  ['post-tasks done', state(POSTTASK, POSTTASK, RUNNING), { kind: 'postTasksDone' }, { stepStatus: ErrorCode.PostProcessingOk }],
  ['complete', state(POSTTASK, POSTTASK, RUNNING), { kind: 'allDone' }, { globalStep: ALLDONETASK, globalLastStep: ALLDONETASK, step: 0, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk, updatedInfo: DONE }],
  ['complete early (partner has it all)', state(PRETASK, PRETASK, RUNNING), { kind: 'allDone' }, { globalStep: ALLDONETASK, updatedInfo: DONE }],
  ['error tasks start', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'errorTasksStart', code: ErrorCode.TransferError }, { globalStep: ERRORTASK, step: 0, infoStatus: ErrorCode.TransferError }],
  ['error end keeps the restart point', state(ERRORTASK, TRANSFERTASK, RUNNING), { kind: 'inError', code: ErrorCode.TransferError }, { globalStep: ERRORTASK, stepStatus: ErrorCode.TransferError, updatedInfo: INERROR }],
  ['error end rescheduled', state(ERRORTASK, TRANSFERTASK, RUNNING), { kind: 'inError', code: ErrorCode.TransferError, rescheduled: true }, { stepStatus: ErrorCode.Warning, infoStatus: ErrorCode.TransferError, updatedInfo: TOSUBMIT }],
  ['local shutdown', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'inError', code: ErrorCode.Shutdown }, { updatedInfo: INTERRUPTED }],
  ['retryable end left to the caller', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'inError', code: ErrorCode.Disconnection, retriedByCaller: true }, { updatedInfo: TOSUBMIT }],
  ['connection failed, retried', state(NOTASK, NOTASK, RUNNING), { kind: 'failedBeforeSession', code: ErrorCode.ConnectionImpossible, retry: true }, { infoStatus: ErrorCode.ConnectionImpossible, updatedInfo: TOSUBMIT }],
  ['connection failed for good', state(NOTASK, NOTASK, RUNNING), { kind: 'failedBeforeSession', code: ErrorCode.NotKnownHost, retry: false }, { globalStep: ERRORTASK, updatedInfo: INERROR }],
  ['retry later', state(NOTASK, NOTASK, TOSUBMIT), { kind: 'retryLater', at }, { updatedInfo: TOSUBMIT, start: at }],
  ['given up', state(NOTASK, NOTASK, TOSUBMIT), { kind: 'givenUp' }, { updatedInfo: INERROR, globalStep: ERRORTASK }],
  ['due row of the requested side', state(NOTASK, NOTASK, TOSUBMIT), { kind: 'notRequester' }, { updatedInfo: INTERRUPTED }],
  ['due row taken by the scheduler', state(ERRORTASK, TRANSFERTASK, TOSUBMIT), { kind: 'dueStart' }, { updatedInfo: RUNNING, infoStatus: ErrorCode.Running }],
  ['row left running handed back', state(TRANSFERTASK, TRANSFERTASK, RUNNING, { rank: 7 }), { kind: 'handBack', at }, { updatedInfo: TOSUBMIT, start: at }],
  ['interrupted row handed back', state(ERRORTASK, TRANSFERTASK, INTERRUPTED), { kind: 'handBack' }, { updatedInfo: TOSUBMIT }],
  ['history export clean of a complete row', state(ALLDONETASK, ALLDONETASK, INERROR, { infoStatus: ErrorCode.CompleteOk }), { kind: 'clean' }, { updatedInfo: DONE }],
  ['stop of a stored row', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'stopRecord' }, { globalStep: ERRORTASK, stepStatus: ErrorCode.StoppedTransfer, infoStatus: ErrorCode.StoppedTransfer, updatedInfo: INERROR }],
  ['cancel of a stored row', state(TRANSFERTASK, TRANSFERTASK, TOSUBMIT, { rank: 9 }), { kind: 'cancelRecord' }, { infoStatus: ErrorCode.CanceledTransfer, rank: 0, updatedInfo: INERROR }],
  ['restart at the data phase', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'restart', at }, { globalStep: TRANSFERTASK, globalLastStep: TRANSFERTASK, stepStatus: ErrorCode.PreProcessingOk, infoStatus: ErrorCode.PreProcessingOk, updatedInfo: TOSUBMIT, start: at }],
  ['restart at the pre-tasks', state(ERRORTASK, PRETASK, INERROR), { kind: 'restart', at }, { globalStep: PRETASK, stepStatus: ErrorCode.InitOk }],
  ['restart at the post-tasks', state(ERRORTASK, POSTTASK, INERROR), { kind: 'restart', at }, { globalStep: POSTTASK, stepStatus: ErrorCode.TransferOk }],
  ['restart of a row never started', state(ERRORTASK, NOTASK, INERROR), { kind: 'restart', at }, { globalStep: NOTASK, stepStatus: ErrorCode.Unknown }],
  ['restart of a finished row: Q only', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'alreadyFinished' }, { infoStatus: ErrorCode.QueryAlreadyFinished }],
  ['v1 edit of a stored row: the columns given, submitted', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'edit', set: { globalStep: TRANSFERTASK, stepStatus: ErrorCode.PreProcessingOk } }, { globalStep: TRANSFERTASK, stepStatus: ErrorCode.PreProcessingOk, updatedInfo: TOSUBMIT }],
  ['v1 edit of a new row to a finished state', state(NOTASK, NOTASK, TOSUBMIT), { kind: 'edit', set: { globalStep: ALLDONETASK } }, { globalStep: ALLDONETASK, updatedInfo: TOSUBMIT }],
  ['v1 edit of a finished row, steps kept', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'edit', set: { globalStep: ALLDONETASK, infoStatus: ErrorCode.CompleteOk } }, { updatedInfo: TOSUBMIT }],
];

describe('transfer state machine: legal moves', () => {
  it.each(legal)('%s', (_name, from, move, expected) => {
    expect(isLegal(from, move.kind)).toBe(true);
    expect(isLegal(from, move)).toBe(true);
    expect(transition(from, move)).toMatchObject(expected);
  });

  it('every move of the table is exercised', () => {
    const seen = new Set(legal.map(([, , m]) => m.kind));
    expect([...Object.keys(MOVES)].filter((k) => !seen.has(k as MoveKind))).toEqual([]);
  });

  it('a new row starts at 0/0, step -1, statuses -', () => {
    expect(initialState(UpdatedInfo.TOSUBMIT)).toEqual({ globalStep: NOTASK, globalLastStep: NOTASK, step: -1, rank: 0, stepStatus: ErrorCode.Unknown, infoStatus: ErrorCode.Unknown, updatedInfo: TOSUBMIT });
  });
});

const illegal: Array<[string, TransferState, TransferMove, string]> = [
  ['attempt of a finished row', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'attemptStart' }, 'QueryAlreadyFinished'],
  ['pre-tasks again after the data phase', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'preTasksStart', stepIndex: 0 }, 'IncorrectCommand'],
  ['pre-tasks done without their start', state(NOTASK, NOTASK, RUNNING), { kind: 'preTasksDone' }, 'IncorrectCommand'],
  ['data phase before the pre-tasks', state(NOTASK, NOTASK, RUNNING), { kind: 'transferStart' }, 'IncorrectCommand'],
  ['data phase after the post-tasks', state(POSTTASK, POSTTASK, RUNNING), { kind: 'transferStart' }, 'IncorrectCommand'],
  ['post-tasks without data phase', state(PRETASK, PRETASK, RUNNING), { kind: 'postTasksStart', stepIndex: 0 }, 'IncorrectCommand'],
  ['post-tasks done without their start', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'postTasksDone' }, 'IncorrectCommand'],
  ['complete from the error step', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'allDone' }, 'IncorrectCommand'],
  ['complete twice', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'allDone' }, 'IncorrectCommand'],
  ['error tasks twice', state(ERRORTASK, TRANSFERTASK, RUNNING), { kind: 'errorTasksStart', code: ErrorCode.TransferError }, 'IncorrectCommand'],
  ['error after completion', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'inError', code: ErrorCode.TransferError }, 'QueryAlreadyFinished'],
  ['stop of a finished row', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'stopRecord' }, 'QueryAlreadyFinished'],
  ['cancel of a finished row', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'cancelRecord' }, 'QueryAlreadyFinished'],
  ['restart of a finished row', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'restart', at }, 'QueryAlreadyFinished'],
  ['restart of a row marked done', state(ERRORTASK, TRANSFERTASK, DONE), { kind: 'restart', at }, 'QueryAlreadyFinished'],
  ['Q mark on a row not finished', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'alreadyFinished' }, 'IncorrectCommand'],
  ['requested-side mark of a running row', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'notRequester' }, 'IncorrectCommand'],
  ['due start of a running row', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'dueStart' }, 'IncorrectCommand'],
  ['due start of a finished row', state(ALLDONETASK, ALLDONETASK, TOSUBMIT), { kind: 'dueStart' }, 'IncorrectCommand'],
  ['hand-back of a row in error', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'handBack' }, 'IncorrectCommand'],
  ['clean of a complete row with a warning', state(ALLDONETASK, ALLDONETASK, INERROR, { infoStatus: ErrorCode.Warning }), { kind: 'clean' }, 'IncorrectCommand'],
  ['clean of a row already DONE', state(ALLDONETASK, ALLDONETASK, DONE, { infoStatus: ErrorCode.CompleteOk }), { kind: 'clean' }, 'IncorrectCommand'],
  ['clean of a row in error', state(ERRORTASK, TRANSFERTASK, INERROR, { infoStatus: ErrorCode.CompleteOk }), { kind: 'clean' }, 'IncorrectCommand'],
  ['retry of a finished row', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'retryLater', at }, 'QueryAlreadyFinished'],
  ['v1 edit of a running row', state(TRANSFERTASK, TRANSFERTASK, RUNNING), { kind: 'edit', set: {} }, 'QueryStillRunning'],
  ['v1 edit to GLOBALLASTSTEP ERRORTASK', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'edit', set: { globalLastStep: ERRORTASK } }, 'IncorrectCommand'],
  ['v1 edit to GLOBALSTEP behind GLOBALLASTSTEP', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'edit', set: { globalStep: PRETASK } }, 'IncorrectCommand'],
  ['v1 edit to STEP -2', state(ERRORTASK, TRANSFERTASK, INERROR), { kind: 'edit', set: { step: -2 } }, 'IncorrectCommand'],
  ['v1 edit reopening a finished row', state(ALLDONETASK, ALLDONETASK, DONE), { kind: 'edit', set: { globalStep: TRANSFERTASK, globalLastStep: TRANSFERTASK } }, 'QueryAlreadyFinished'],
];

describe('transfer state machine: illegal moves are refused', () => {
  it.each(illegal)('%s', (_name, from, move, code) => {
    expect(isLegal(from, move)).toBe(false);
    let thrown: unknown;
    try {
      transition(from, move);
    } catch (err) {
      thrown = err;
    }
    expect(isIllegalTransition(thrown)).toBe(true);
    expect((thrown as R66Error).code.name).toBe(code);
    expect((thrown as Error).message).toContain(move.kind);
  });
});

describe('restart point (one function)', () => {
  it.each([
    ['sender in the data phase keeps its rank', { globalLastStep: TRANSFERTASK, rank: 50 }, { isSender: true, gapRestart: 4 }, { step: TRANSFERTASK, rank: 50 }],
    ['receiver lowers by gaprestart', { globalLastStep: TRANSFERTASK, rank: 50 }, { isSender: false, gapRestart: 4 }, { step: TRANSFERTASK, rank: 46 }],
    ['receiver never below 1 once data came', { globalLastStep: TRANSFERTASK, rank: 3 }, { isSender: false, gapRestart: 30 }, { step: TRANSFERTASK, rank: 1 }],
    ['before the data phase: rank 0', { globalLastStep: PRETASK, rank: 12 }, { isSender: true, gapRestart: 4 }, { step: PRETASK, rank: 0 }],
    ['the partner offers less', { globalLastStep: TRANSFERTASK, rank: 50 }, { isSender: true, gapRestart: 4, offeredRank: 20 }, { step: TRANSFERTASK, rank: 20 }],
    ['through mode restarts at 0', { globalLastStep: TRANSFERTASK, rank: 50 }, { isSender: true, gapRestart: 4, through: true }, { step: TRANSFERTASK, rank: 0 }],
    ['post-tasks keep the rank', { globalLastStep: POSTTASK, rank: 50 }, { isSender: false, gapRestart: 4 }, { step: POSTTASK, rank: 50 }],
    ['never started', { globalLastStep: NOTASK, rank: 0 }, { isSender: true, gapRestart: 4 }, { step: NOTASK, rank: 0 }],
  ] as const)('%s', (_name, s, opts, expected) => {
    expect(restartPoint(s, opts)).toEqual(expected);
  });
});

describe('server start (the bulk move SERVER_START)', () => {
  // The store applies SERVER_START in one statement (runner.resetInterrupted): it must write
  // exactly the state machine's values, and the row by row form (handBack) the same.
  it('the store resets the rows SERVER_START names, to its UPDATEDINFO, and nothing else', async () => {
    const { store, close } = await openRecordStore('svc-state-');
    try {
      const all = [UpdatedInfo.UNKNOWN, INTERRUPTED, TOSUBMIT, INERROR, RUNNING, DONE];
      for (const [i, u] of all.entries()) await store.runner.insert(transferRecord(BigInt(700 + i), { updatedInfo: u, globalStep: TRANSFERTASK, globalLastStep: TRANSFERTASK }));
      expect(await store.runner.resetInterrupted(RECORD_OWNER)).toBe(SERVER_START.from.length);
      for (const [i, u] of all.entries()) {
        const row = await store.runner.get({ specialId: BigInt(700 + i), requester: RECORD_OWNER, requested: 'partnerA', ownerReq: RECORD_OWNER });
        const expected = SERVER_START.from.includes(u) ? SERVER_START.set.updatedInfo : u;
        expect(row?.updatedInfo).toBe(expected);
        if (SERVER_START.from.includes(u)) expect(transition(state(TRANSFERTASK, TRANSFERTASK, u), { kind: 'handBack' }).updatedInfo).toBe(expected);
      }
    } finally {
      await close();
    }
  });
});

describe('bulk moves: the store writes the values state.ts names (SQL and no-database stores)', () => {
  // Rows over UPDATEDINFO x GLOBALLASTSTEP x STEPSTATUS, lower-case codes included (above 'O' as
  // code units, below it in a case-insensitive collation).
  const rows = (): Array<ReturnType<typeof transferRecord>> => {
    const out: Array<ReturnType<typeof transferRecord>> = [];
    let id = 900n;
    for (const u of [UpdatedInfo.UNKNOWN, UpdatedInfo.NOTUPDATED, INTERRUPTED, TOSUBMIT, INERROR, RUNNING, DONE]) {
      for (const last of [TRANSFERTASK, ALLDONETASK]) {
        for (const status of [ErrorCode.CompleteOk, ErrorCode.Unknown, ErrorCode.Warning, ErrorCode.FileNotFound, ErrorCode.InitOk]) {
          out.push(transferRecord(id++, { updatedInfo: u, globalStep: last, globalLastStep: last, stepStatus: status }));
        }
      }
    }
    return out;
  };

  async function check(runner: RunnerRepository): Promise<void> {
    const all = rows();
    for (const r of all) await runner.insert(r);
    for (const [move, apply] of [[SERVER_START, () => runner.resetInterrupted(RECORD_OWNER)], [FINISHED_DONE, () => runner.markFinishedAsDone(RECORD_OWNER)]] as const) {
      const before = await Promise.all(all.map((r) => runner.get(r)));
      const moved = before.filter((r) => r !== undefined && inBulkMove(move, r));
      expect(moved.length).toBeGreaterThan(0);
      expect(await apply()).toBe(moved.length);
      for (const [i, r] of before.entries()) {
        const after = await runner.get(all[i]!);
        expect(after?.updatedInfo).toBe(inBulkMove(move, r!) ? move.set.updatedInfo : r!.updatedInfo);
        expect({ ...after, updatedInfo: 0 }).toEqual({ ...r, updatedInfo: 0 });
      }
    }
  }

  it('SERVER_START and FINISHED_DONE as SQL values: one SET, WHERE on the state columns', () => {
    expect(bulkMoveSql(SERVER_START)).toEqual({ set: { updatedinfo: TOSUBMIT }, where: [{ column: 'updatedinfo', op: 'in', value: [RUNNING, INTERRUPTED] }] });
    const done = bulkMoveSql(FINISHED_DONE);
    expect(done.set).toEqual({ updatedinfo: DONE });
    expect(done.where.find((c) => c.column === 'stepstatus')?.value).toContain('f');
    expect(done.where.find((c) => c.column === 'stepstatus')?.value).not.toContain('O');
  });

  it('SQL store (one UPDATE each)', async () => {
    const { store, close } = await openRecordStore('svc-bulk-');
    try {
      await check(store.runner);
    } finally {
      await close();
    }
  });

  it('no-database store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bulk-nodb-'));
    try {
      await check(new FileRunnerRepository(dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
