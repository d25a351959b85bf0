/**
 * The status columns of a RUNNER row whose transfer failed, derived from the domain error's code in
 * one place (decision 0049); the state machine (transfer-state.ts, moves `inError` and
 * `failedBeforeSession`) writes them with the step columns.
 */
import { ErrorCode, type ErrorCodeInfo } from './error-code.js';
import { UpdatedInfo } from './transfer.js';

export interface FailedRowStatus {
  stepStatus: ErrorCodeInfo;
  infoStatus: ErrorCodeInfo;
  updatedInfo: UpdatedInfo;
}

export interface FailureEnd {
  /** The error tasks rescheduled the transfer (RESCHEDULE task): submitted again at its new start. */
  rescheduled?: boolean;
  /** The caller tries it again (a requester's retryable end): submitted again. */
  retried?: boolean;
  /** The transfer never reached its partner: there is no session for a next start to resume. */
  beforeSession?: boolean;
}

/**
 * INFOSTATUS is the error's code; STEPSTATUS too, except after a reschedule, where it shows the
 * error tasks' result (Warning). UPDATEDINFO: TOSUBMIT when the transfer is tried again, INTERRUPTED
 * for a local shutdown (the next start resubmits it, database.md §6), INERROR otherwise.
 */
export function failedRowStatus(code: ErrorCodeInfo, end: FailureEnd = {}): FailedRowStatus {
  const again = end.rescheduled === true || end.retried === true;
  const interrupted = code === ErrorCode.Shutdown && end.beforeSession !== true;
  return {
    stepStatus: end.rescheduled === true ? ErrorCode.Warning : code,
    infoStatus: code,
    updatedInfo: again ? UpdatedInfo.TOSUBMIT : interrupted ? UpdatedInfo.INTERRUPTED : UpdatedInfo.INERROR,
  };
}
