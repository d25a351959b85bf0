// REST v2 history export with clean (history.md §1.2): the rows complete and OK are marked DONE
// through the state machine's `clean` move; the others (in error, a warning) are left as they are.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportHistoryV2 } from '../../src/admin/index.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { RECORD_OWNER, transferRecord } from '../helpers/transfer-record.js';

describe('history export v2 clean', () => {
  let db: TestDatabase | undefined;
  let store: Store;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-hclean-'));
    db = await testDialects()[0]!.create();
    store = await openStore(db!.settings, { hostId: RECORD_OWNER });
    await store.initSchema({ hostId: RECORD_OWNER });
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('marks DONE only the rows complete with CompleteOk', async () => {
    const done = { globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK };
    await store.runner.insert(transferRecord(961n, { ...done, updatedInfo: UpdatedInfo.INERROR, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk }));
    await store.runner.insert(transferRecord(962n, { ...done, updatedInfo: UpdatedInfo.INERROR, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.Warning }));
    await store.runner.insert(transferRecord(963n, { globalStep: TaskStep.ERRORTASK, globalLastStep: TaskStep.TRANSFERTASK, updatedInfo: UpdatedInfo.INERROR, infoStatus: ErrorCode.TransferError }));
    const result = await exportHistoryV2({ store, hostId: RECORD_OWNER, archiveDir: dir }, { clean: true });
    expect(result).toMatchObject({ exported: 3, purged: 0 });
    const info = async (id: bigint) => (await store.runner.get({ specialId: id, requester: RECORD_OWNER, requested: 'partnerA', ownerReq: RECORD_OWNER }))?.updatedInfo;
    expect([await info(961n), await info(962n), await info(963n)]).toEqual([UpdatedInfo.DONE, UpdatedInfo.INERROR, UpdatedInfo.INERROR]);
  });
});
