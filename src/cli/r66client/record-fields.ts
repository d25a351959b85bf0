/**
 * The transfer part of a result object (cli.md §3.13): the fields the original prints for one
 * RUNNER record, in its order, after `command`, `args`, `status` and `statusTxt`.
 */
import { ErrorCode, type ErrorCodeInfo } from '../../model/error-code.js';
import { TaskStep, type TransferRecord } from '../../model/transfer.js';
import type { ResultFields } from './output.js';

/** `ORIGINALSIZE` of the TRANSFERINFO JSON (database.md §4.4), -1 when absent. */
export function originalSizeOf(transferInfo: string): bigint {
  const m = /"ORIGINALSIZE"\s*:\s*(-?\d+)/.exec(transferInfo);
  return m ? BigInt(m[1] as string) : -1n;
}

/** Adds remote ... originalPath for `record`; `remote` is the partner of this host. */
export function addRecordFields(fields: ResultFields, record: TransferRecord, remote: string): ResultFields {
  return fields
    .set('remote', remote)
    .set('ruleid', record.idRule)
    .set('statusCode', record.infoStatus.char)
    .set('specialid', record.specialId)
    .set('finalPath', record.filename)
    .set('requested', record.requested)
    .set('requester', record.requester)
    .set('fileInformation', record.fileInfo)
    .set('transferInformation', record.transferInfo)
    .set('originalSize', originalSizeOf(record.transferInfo))
    .set('originalPath', record.originalName);
}

/** The original's `error` of a transfer that failed on the requester at its pre-tasks or before them. */
export const PRE_TASK_ERROR = 'Pre task in error (or even before)';

/**
 * The `error` field of a failed transfer. A file this host was to send and did not find ends the
 * transfer before anything reached the partner: the original prints its fixed text for that
 * (captures/cli-output-java-3.6.2.md); the code and detail stay in the log and in `statusCode`.
 * Other failures: `<code name>: <message>`.
 */
export function transferErrorText(record: TransferRecord, code: ErrorCodeInfo, message: string): string {
  if (record.retrieveMode && code === ErrorCode.FileNotFound && record.globalLastStep === TaskStep.NOTASK) return PRE_TASK_ERROR;
  return `${code.name}: ${message}`;
}
