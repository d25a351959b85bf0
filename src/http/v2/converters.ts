/** Model records to the v2 JSON objects (rest-v2.md §10.1, §10.7, §10.8), keys in the documented order. */
import type { Host } from '../../model/host.js';
import { TransferMode, type Rule, type RuleTask } from '../../model/rule.js';
import { GLOBAL_STEPS, TaskStep, TRANSFER_STATUS, UpdatedInfo, type TransferRecord } from '../../model/transfer.js';
import { formatIsoLocal } from '../../model/iso-date.js';

// The names live in the model: push monitoring (src/monitor) writes them too.
export { GLOBAL_STEPS, TRANSFER_STATUS };

/** v2 mode names by code (rest-v2.md §11). */
export const MODE_NAMES: Record<number, string> = {
  [TransferMode.SENDMODE]: 'send', [TransferMode.RECVMODE]: 'receive', [TransferMode.SENDMD5MODE]: 'sendMD5',
  [TransferMode.RECVMD5MODE]: 'receiveMD5', [TransferMode.SENDTHROUGHMODE]: 'SENDTHROUGHMODE',
  [TransferMode.RECVTHROUGHMODE]: 'RECVTHROUGHMODE', [TransferMode.SENDMD5THROUGHMODE]: 'SENDMD5THROUGHMODE',
  [TransferMode.RECVMD5THROUGHMODE]: 'RECVMD5THROUGHMODE',
};
export const MODE_BY_NAME: Record<string, TransferMode> = {
  ...Object.fromEntries(Object.entries(MODE_NAMES).map(([code, name]) => [name, Number(code) as TransferMode])),
  // The docs' query spellings (§10.8).
  'send+md5': TransferMode.SENDMD5MODE, 'receive+md5': TransferMode.RECVMD5MODE,
};

export function transferToJson(r: TransferRecord): Record<string, unknown> {
  return {
    id: r.specialId,
    globalStep: GLOBAL_STEPS[r.globalStep] ?? 'NOTASK',
    globalLastStep: GLOBAL_STEPS[r.globalLastStep] ?? 'NOTASK',
    step: r.step,
    rank: r.rank,
    status: TRANSFER_STATUS[r.updatedInfo] ?? 'UNKNOWN',
    stepStatus: r.stepStatus.name,
    errorCode: r.infoStatus.char.charCodeAt(0),
    errorMessage: r.infoStatus.meaning,
    originalFilename: r.originalName,
    filename: r.filename,
    ruleName: r.idRule,
    blockSize: r.blockSize,
    fileInfo: r.fileInfo,
    transferInfo: r.transferInfo,
    start: formatIsoLocal(r.start),
    stop: formatIsoLocal(r.stop),
    requested: r.requested,
    requester: r.requester,
    retrieve: r.retrieveMode,
  };
}

export function hostToJson(h: Host, withPassword = true): Record<string, unknown> {
  return {
    name: h.hostId,
    address: h.address,
    port: h.port,
    // Base64 of the stored (encrypted hex) key bytes: the clear password never leaves the server;
    // even that only for callers who may change hosts (`withPassword`), empty for the others.
    password: h.hostKey === null || !withPassword ? '' : h.hostKey.toString('base64'),
    isSSL: h.isSsl,
    isClient: h.isClient,
    isAdmin: h.adminRole,
    isActive: h.isActive,
    isProxy: h.isProxified,
  };
}

const taskJson = (t: RuleTask): Record<string, unknown> => ({ type: t.type, arguments: t.path, delay: t.delay });

/** The six task keys with their natural meaning (defect V4: the original scrambles four of them). */
export function ruleToJson(r: Rule): Record<string, unknown> {
  return {
    name: r.idRule,
    hostIds: r.hostIds,
    mode: MODE_NAMES[r.mode] ?? 'send',
    recvPath: r.recvPath,
    sendPath: r.sendPath,
    archivePath: r.archivePath,
    workPath: r.workPath,
    rPreTasks: r.rPreTasks.map(taskJson),
    rPostTasks: r.rPostTasks.map(taskJson),
    rErrorTasks: r.rErrorTasks.map(taskJson),
    sPreTasks: r.sPreTasks.map(taskJson),
    sPostTasks: r.sPostTasks.map(taskJson),
    sErrorTasks: r.sErrorTasks.map(taskJson),
  };
}

export { TaskStep, UpdatedInfo };
