import type { ErrorCodeInfo } from './error-code.js';
import type { TransferMode } from './rule.js';

/** `GLOBALSTEP` / `GLOBALLASTSTEP` values (database.md §5.2). */
export enum TaskStep {
  NOTASK = 0,
  PRETASK = 1,
  TRANSFERTASK = 2,
  POSTTASK = 3,
  ALLDONETASK = 4,
  ERRORTASK = 5,
}

/**
 * `UPDATEDINFO` values (database.md §5.1). On RUNNER it is the life-cycle status; on the
 * configuration tables only UNKNOWN (new), NOTUPDATED (seen) and TOSUBMIT (to reload) are used.
 */
export enum UpdatedInfo {
  UNKNOWN = 0,
  NOTUPDATED = 1,
  INTERRUPTED = 2,
  TOSUBMIT = 3,
  INERROR = 4,
  RUNNING = 5,
  DONE = 6,
}

/** The names of the UpdatedInfo values, by value (REST v2 `status`, push monitoring). */
export const TRANSFER_STATUS = ['UNKNOWN', 'NOTUPDATED', 'INTERRUPTED', 'TOSUBMIT', 'INERROR', 'RUNNING', 'DONE'] as const;
/** The names of the TaskStep values, by value (REST v2 `globalStep`, push monitoring). */
export const GLOBAL_STEPS = ['NOTASK', 'PRETASK', 'TRANSFERTASK', 'POSTTASK', 'ALLDONETASK', 'ERRORTASK'] as const;

/** Any stored value outside 0..6 reads as UNKNOWN (database.md §5.1). */
export function toUpdatedInfo(value: number): UpdatedInfo {
  return Number.isInteger(value) && value >= 0 && value <= 6 ? (value as UpdatedInfo) : UpdatedInfo.UNKNOWN;
}

/** Transfer id meaning "no id yet" (Java Long.MIN_VALUE, database.md §7). */
export const ILLEGAL_SPECIAL_ID = -9223372036854775808n;

/** The four columns that identify one RUNNER row: ids are unique only together with the hosts. */
export interface TransferKey {
  specialId: bigint;
  requester: string;
  requested: string;
  ownerReq: string;
}

/**
 * One transfer as the original keeps it (table RUNNER, database.md §3.3; runner XML).
 * Timestamps are local wall-clock times (the original stores them without zone).
 */
export interface TransferRecord extends TransferKey {
  globalStep: TaskStep;
  globalLastStep: TaskStep;
  /** Index of the current task in the current step's list (-1 = none). */
  step: number;
  /** Blocks already transferred (restart position). */
  rank: number;
  blockSize: number;
  mode: TransferMode;
  updatedInfo: UpdatedInfo;
  stepStatus: ErrorCodeInfo;
  infoStatus: ErrorCodeInfo;
  /** True when this host sends the file. */
  retrieveMode: boolean;
  isMoved: boolean;
  start: Date;
  stop: Date;
  idRule: string;
  filename: string;
  originalName: string;
  fileInfo: string;
  /** Free text then a JSON object of technical data (database.md §4.4). */
  transferInfo: string;
}
