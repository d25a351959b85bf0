// REST v2 history export with clean (history.md §1.2): the rows complete and OK are marked DONE
// through the state machine's `clean` move; the others (in error, a warning) are left as they are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportHistoryV2 } from '../../src/admin/index.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import type { Store } from '../../src/store/index.js';
import { openRecordStore, type RecordStore } from '../helpers/record-store.js';
import { RECORD_OWNER, transferRecord } from '../helpers/transfer-record.js';

describe('history export v2 clean', () => {
  let rs: RecordStore;
  let store: Store;

  beforeAll(async () => {
    rs = await openRecordStore('svc-hclean-');
    store = rs.store;
  });

  afterAll(() => rs?.close());

  it('marks DONE only the rows complete with CompleteOk', async () => {
    const done = { globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK };
    await store.runner.insert(transferRecord(961n, { ...done, updatedInfo: UpdatedInfo.INERROR, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk }));
    await store.runner.insert(transferRecord(962n, { ...done, updatedInfo: UpdatedInfo.INERROR, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.Warning }));
    await store.runner.insert(transferRecord(963n, { globalStep: TaskStep.ERRORTASK, globalLastStep: TaskStep.TRANSFERTASK, updatedInfo: UpdatedInfo.INERROR, infoStatus: ErrorCode.TransferError }));
    const result = await exportHistoryV2({ store, hostId: RECORD_OWNER, archiveDir: rs.dir }, { clean: true });
    expect(result).toMatchObject({ exported: 3, purged: 0 });
    const info = async (id: bigint) => (await store.runner.get({ specialId: id, requester: RECORD_OWNER, requested: 'partnerA', ownerReq: RECORD_OWNER }))?.updatedInfo;
    expect([await info(961n), await info(962n), await info(963n)]).toEqual([UpdatedInfo.DONE, UpdatedInfo.INERROR, UpdatedInfo.INERROR]);
  });
});
