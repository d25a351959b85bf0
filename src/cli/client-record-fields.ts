/**
 * The transfer part of a result object (cli.md §3.13): the fields the original prints for one
 * RUNNER record, in its order, after `command`, `args`, `status` and `statusTxt`.
 */
import type { TransferRecord } from '../model/transfer.js';
import type { ResultFields } from './client-output.js';

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
