/**
 * The write methods of RUNNER (issue 33 item 2, decision 0047) on every store: a move is checked
 * by the state machine and written with the fields it carries; an illegal one writes nothing; the
 * engine's staged moves and the named non-state updates write their columns and STOPTRANS only,
 * each one's columns landing when several come at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { isIllegalTransition, mergeMoves, transition } from '../../src/model/transfer-state.js';
import { TaskStep, UpdatedInfo, type TransferKey, type TransferRecord } from '../../src/model/transfer.js';
import { FileRunnerRepository } from '../../src/store/nodb/file-runner.js';
import { openStore, type RunnerRepository, type Store } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { RECORD_OWNER, transferRecord } from '../helpers/transfer-record.js';

const keyOf = (r: TransferRecord): TransferKey => ({ specialId: r.specialId, requester: r.requester, requested: r.requested, ownerReq: r.ownerReq });
const stop = new Date(2024, 1, 2, 3, 4, 5, 600);

async function checkWrites(runner: RunnerRepository): Promise<void> {
  const tosubmit = transferRecord(101n, { updatedInfo: UpdatedInfo.TOSUBMIT });
  await runner.insert(tosubmit);

  // A move: the machine's columns, the fields it carries, STOPTRANS given; the columns written are returned.
  const written = await runner.move(tosubmit, { kind: 'dueStart' }, { transferInfo: '{"claimed":1}', stop });
  expect(written).toEqual({ updatedInfo: UpdatedInfo.RUNNING, infoStatus: ErrorCode.Running, transferInfo: '{"claimed":1}', stop });
  expect(await runner.get(keyOf(tosubmit))).toEqual({ ...tosubmit, updatedInfo: UpdatedInfo.RUNNING, infoStatus: ErrorCode.Running, transferInfo: '{"claimed":1}', stop });

  // Illegal from the row's state: refused before anything is written.
  const running = (await runner.get(keyOf(tosubmit)))!;
  await expect(runner.move(running, { kind: 'dueStart' }, { filename: '/never' })).rejects.toSatisfy(isIllegalTransition);
  expect(await runner.get(keyOf(tosubmit))).toEqual(running);
  // No row with the key: nothing written, undefined.
  expect(await runner.move({ ...running, specialId: 999n }, { kind: 'handBack' })).toBeUndefined();

  // The engine's staged moves: two moves and non-state fields in one write.
  const pre = transition(running, { kind: 'preTasksStart', stepIndex: 0 });
  const moved = mergeMoves(pre, transition({ ...running, ...pre }, { kind: 'preTasksDone' }));
  expect(await runner.saveMoves(keyOf(running), moved, { blockSize: 1024, mode: 3, originalName: 'other.csv', stop })).toBe(true);
  expect(await runner.get(keyOf(running))).toMatchObject({
    globalStep: TaskStep.PRETASK, globalLastStep: TaskStep.PRETASK, step: 0, updatedInfo: UpdatedInfo.RUNNING, blockSize: 1024, mode: 3, originalName: 'other.csv', stop,
  });
  expect((await runner.get(keyOf(running)))?.stepStatus).toBe(ErrorCode.PreProcessingOk);
  expect(await runner.saveMoves(keyOf(running), undefined, { isMoved: true, filename: '/in/final.csv' })).toBe(true);
  expect(await runner.get(keyOf(running))).toMatchObject({ isMoved: true, filename: '/in/final.csv', globalStep: TaskStep.PRETASK });

  // Named non-state updates: their columns and STOPTRANS (now) only.
  const before = (await runner.get(keyOf(running)))!;
  expect(await runner.updateRank(keyOf(running), 42)).toBe(true);
  expect(await runner.updateInfo(keyOf(running), { transferInfo: '{"RETRY":0}' })).toBe(true);
  const at = new Date(2030, 0, 1, 0, 0, 0, 0);
  expect(await runner.reschedule(keyOf(running), at, '{"RESCHEDULE":true}')).toBe(true);
  expect(await runner.updateFilename(keyOf(running), '###FILE DELETED### /in/final.csv')).toBe(true);
  const after = (await runner.get(keyOf(running)))!;
  expect({ ...after, stop: before.stop }).toEqual({ ...before, rank: 42, transferInfo: '{"RESCHEDULE":true}', start: at, filename: '###FILE DELETED### /in/final.csv' });
  expect(after.stop.getTime()).toBeGreaterThan(stop.getTime());
  expect(await runner.updateRank({ ...keyOf(running), specialId: 999n }, 1)).toBe(false);

  // The heartbeat of a running transfer (issue 35 item 2): STOPTRANS alone, now.
  const beforeAlive = (await runner.get(keyOf(running)))!;
  expect(await runner.updateAlive(keyOf(running))).toBe(true);
  const alive = (await runner.get(keyOf(running)))!;
  expect({ ...alive, stop: beforeAlive.stop }).toEqual(beforeAlive);
  expect(alive.stop.getTime()).toBeGreaterThanOrEqual(beforeAlive.stop.getTime());
  // Writes of one row at once (a heartbeat beside a task's RESCHEDULE): each one's columns land.
  expect(await Promise.all([runner.updateAlive(keyOf(running)), runner.updateRank(keyOf(running), 43), runner.updateInfo(keyOf(running), { fileInfo: 'both' }), runner.updateAlive(keyOf(running))]))
    .toEqual([true, true, true, true]);
  expect(await runner.get(keyOf(running))).toMatchObject({ rank: 43, fileInfo: 'both' });

  // Rows from an export: inserted, or replacing the row with their key.
  const imported = transferRecord(102n, { updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, stepStatus: ErrorCode.CompleteOk });
  await runner.importRows([imported, { ...running, updatedInfo: UpdatedInfo.INERROR }]);
  expect(await runner.get(keyOf(imported))).toEqual(imported);
  expect((await runner.get(keyOf(running)))?.updatedInfo).toBe(UpdatedInfo.INERROR);
  expect(await runner.deleteWhere({ ownerReq: RECORD_OWNER })).toBe(2);
}

describe.each(testDialects())('RUNNER writes on $name', (dialect) => {
  let db: TestDatabase | undefined;
  let store: Store;

  beforeAll(async () => {
    db = await dialect.create();
    if (!db) return;
    store = await openStore(db.settings, { hostId: RECORD_OWNER });
    await store.initSchema({ hostId: RECORD_OWNER });
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('move, saveMoves, the named updates, importRows', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    await checkWrites(store.runner);
  });
});

describe('RUNNER writes without a database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-runner-writes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('move, saveMoves, the named updates, importRows', async () => {
    await checkWrites(new FileRunnerRepository(dir));
  });
});
