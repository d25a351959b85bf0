import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { openStore, type Store } from '../../src/store/index.js';
import { RunnerRow } from '../../src/transfer/persistence.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';

// A RunnerRow made for a row not yet in RUNNER (the requested host's new transfer) inserts it with
// its first write, staged changes included, and never updates a row it did not insert.

function record(over: Partial<TransferRecord> = {}): TransferRecord {
  const now = new Date(2026, 10, 21, 12, 0, 0, 0);
  return {
    specialId: 77n, requester: 'hosta', requested: 'hostb', ownerReq: 'hostb',
    globalStep: TaskStep.NOTASK, globalLastStep: TaskStep.NOTASK, step: -1, rank: 0, blockSize: 65536, mode: TransferMode.SENDMODE,
    updatedInfo: UpdatedInfo.RUNNING, stepStatus: ErrorCode.Unknown, infoStatus: ErrorCode.Unknown, retrieveMode: false, isMoved: false,
    start: now, stop: now, idRule: 'send', filename: 'f.dat', originalName: 'f.dat', fileInfo: 'noinfo', transferInfo: '{}', ...over,
  };
}

describe('RunnerRow of a new row', () => {
  const sqlite = testDialects()[0]!;
  let db: TestDatabase | undefined;
  let store: Store;

  beforeAll(async () => {
    db = await sqlite.create();
    store = await openStore(db!.settings, { hostId: 'hostb' });
    await store.initSchema({ hostId: 'hostb' });
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('is inserted by its first write with what was staged, then updated', async () => {
    const row = new RunnerRow(store.runner, record(), false);
    expect(row.hasPending).toBe(true);
    await row.preTasksStart(0, false);
    await row.preTasksDone(false);
    expect(await store.runner.get(row.key)).toBeUndefined();
    await row.saveAll();
    expect(row.hasPending).toBe(false);
    expect(await store.runner.get(row.key)).toMatchObject({ globalStep: TaskStep.PRETASK, stepStatus: ErrorCode.PreProcessingOk, updatedInfo: UpdatedInfo.RUNNING });
    row.record.rank = 3;
    await row.saveRank();
    expect((await store.runner.get(row.key))?.rank).toBe(3);
  });

  // The receiver's checkpoint saves the rank of the blocks it synced while the data loop goes on.
  it('saveRankAt writes that rank with what is staged and leaves the record\'s rank as it is', async () => {
    // After its pre-tasks (the state machine refuses a data phase straight from NOTASK).
    const row = new RunnerRow(store.runner, record({ specialId: 79n, globalStep: TaskStep.PRETASK, globalLastStep: TaskStep.PRETASK }), false);
    await row.saveAll();
    await row.transferStart(false);
    row.record.rank = 40;
    await row.saveRankAt(32);
    expect(row.record.rank).toBe(40);
    expect(row.hasPending).toBe(false);
    expect(await store.runner.get(row.key)).toMatchObject({ rank: 32, globalStep: TaskStep.TRANSFERTASK });
    await row.saveRankAt(36);
    expect((await store.runner.get(row.key))?.rank).toBe(36);
    // A pending whole-row write would carry the record's rank (40, maybe not synced): nothing then.
    row.stageAll();
    await row.saveRankAt(38);
    expect((await store.runner.get(row.key))?.rank).toBe(36);
  });

  it('a second row of the same key fails its insert and leaves the first row as it was', async () => {
    const key = { specialId: 78n, requester: 'hosta', requested: 'hostb', ownerReq: 'hostb' };
    const first = new RunnerRow(store.runner, record(key), false);
    await first.saveAll();
    const second = new RunnerRow(store.runner, record({ ...key, filename: 'other.dat' }), false);
    await expect(second.saveAll()).rejects.toThrow(/already exists in RUNNER/);
    await expect(second.inError(ErrorCode.Internal)).rejects.toThrow(/already exists in RUNNER/);
    expect(await store.runner.get(key)).toMatchObject({ filename: 'f.dat', updatedInfo: UpdatedInfo.RUNNING, globalStep: TaskStep.NOTASK });
  });
});

describe('RunnerRow moves go through the state machine', () => {
  const sqlite = testDialects()[0]!;
  let db: TestDatabase | undefined;
  let store: Store;

  beforeAll(async () => {
    db = await sqlite.create();
    store = await openStore(db!.settings, { hostId: 'hostb' });
    await store.initSchema({ hostId: 'hostb' });
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('an illegal move throws and writes nothing, in memory or in the row', async () => {
    const row = new RunnerRow(store.runner, record({ specialId: 90n }), false);
    await row.preTasksStart(0);
    await row.preTasksDone();
    await row.transferStart();
    await row.postTasksStart(0);
    await row.postTasksDone();
    await row.allDone();
    const done = await store.runner.get(row.key);
    expect(done).toMatchObject({ globalStep: TaskStep.ALLDONETASK, updatedInfo: UpdatedInfo.DONE });
    await expect(row.inError(ErrorCode.TransferError)).rejects.toThrow(/inError is not allowed/);
    await expect(row.transferStart()).rejects.toThrow(/transferStart is not allowed/);
    expect(row.record).toMatchObject({ globalStep: TaskStep.ALLDONETASK, updatedInfo: UpdatedInfo.DONE, infoStatus: ErrorCode.CompleteOk });
    expect(await store.runner.get(row.key)).toMatchObject({ globalStep: TaskStep.ALLDONETASK, updatedInfo: UpdatedInfo.DONE, stepStatus: ErrorCode.CompleteOk });
  });
});
