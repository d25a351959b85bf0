// A RUNNER record for store tests: owner svc1, svc1 -> partnerA, rule send-archive; any field can be
// given instead.
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';

export const RECORD_OWNER = 'svc1';

export function transferRecord(specialId: bigint, over: Partial<TransferRecord> = {}): TransferRecord {
  return {
    specialId, requester: RECORD_OWNER, requested: 'partnerA', ownerReq: RECORD_OWNER,
    globalStep: TaskStep.NOTASK, globalLastStep: TaskStep.NOTASK, step: -1, rank: 0, blockSize: 65536, mode: TransferMode.SENDMODE,
    updatedInfo: UpdatedInfo.UNKNOWN, stepStatus: ErrorCode.Unknown, infoStatus: ErrorCode.Unknown, retrieveMode: true, isMoved: false,
    start: new Date(2023, 8, 5, 10, 12, 1, 500), stop: new Date(2023, 8, 5, 10, 12, 3, 21), idRule: 'send-archive',
    filename: '/out/report.csv', originalName: 'report.csv', fileInfo: 'noinfo', transferInfo: '{"ORIGINALSIZE":18391}', ...over,
  };
}
