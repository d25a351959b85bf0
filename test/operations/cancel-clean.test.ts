// Cancel and clean (web-ui.md §2 CancelClean) through the one order service: the receiver's partial
// work file is deleted, the row stays with rank 0 and `###FILE DELETED### <old name>`; a sending
// row is only cancelled; a finished row is left as it is.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { FILE_DELETED_MARK, TransferOrders } from '../../src/operations/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { RECORD_OWNER, transferRecord } from '../helpers/transfer-record.js';

describe('cancelAndClean', () => {
  const sqlite = testDialects()[0]!;
  let db: TestDatabase | undefined;
  let store: Store;
  let dir: string;
  let orders: TransferOrders;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-clean-'));
    db = await sqlite.create();
    store = await openStore(db!.settings, { hostId: RECORD_OWNER });
    await store.initSchema({ hostId: RECORD_OWNER });
    const directories = { home: dir, in: join(dir, 'in'), out: join(dir, 'out'), work: join(dir, 'work'), arch: join(dir, 'arch'), conf: join(dir, 'conf') };
    orders = new TransferOrders({ store, hostId: RECORD_OWNER, directories: directories as never, blockSize: 65536 });
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const ref = (specialId: bigint) => ({ specialId, requester: RECORD_OWNER, requested: 'partnerA' });

  it('deletes the partial work file of a receiving row and marks its file name; the row stays', async () => {
    const work = join(dir, 'part.dat.r66');
    writeFileSync(work, 'partial');
    await store.runner.insert(transferRecord(901n, {
      retrieveMode: false, filename: work, rank: 12, updatedInfo: UpdatedInfo.INTERRUPTED, globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK,
    }));
    const result = await orders.cancelAndClean(ref(901n));
    expect(result.code).toBe(ErrorCode.CompleteOk);
    expect(existsSync(work)).toBe(false);
    const row = await store.runner.get({ ...ref(901n), ownerReq: RECORD_OWNER });
    expect(row).toMatchObject({ filename: `${FILE_DELETED_MARK}${work}`, rank: 0, infoStatus: ErrorCode.CanceledTransfer });
  });

  it('only cancels a sending row (nothing of the sent file is deleted)', async () => {
    const file = join(dir, 'sent.dat');
    writeFileSync(file, 'kept');
    await store.runner.insert(transferRecord(902n, { retrieveMode: true, filename: file, updatedInfo: UpdatedInfo.INTERRUPTED, globalStep: TaskStep.TRANSFERTASK }));
    await orders.cancelAndClean(ref(902n));
    expect(existsSync(file)).toBe(true);
    expect((await store.runner.get({ ...ref(902n), ownerReq: RECORD_OWNER }))?.filename).toBe(file);
  });

  it('leaves a finished row as it is', async () => {
    const done = transferRecord(903n, { retrieveMode: false, filename: join(dir, 'done.dat'), updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk });
    await store.runner.insert(done);
    expect((await orders.cancelAndClean(ref(903n))).code).toBe(ErrorCode.TransferOk);
    expect((await store.runner.get({ ...ref(903n), ownerReq: RECORD_OWNER }))?.filename).toBe(done.filename);
  });
});
