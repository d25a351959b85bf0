/**
 * The state machine's set-based moves (database.md §6.1, §"Clean"), kept in the store that applies
 * them: SERVER_START is the set form of the state machine's handBack (model/transfer-state.ts), the
 * RUNNER repositories write them in one statement. Pure values, no I/O.
 */
import { ERROR_CODES } from '../model/error-code.js';
import { HAND_BACK_FROM } from '../model/transfer-state.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../model/transfer.js';

/**
 * A set-based move the store applies in one statement (one `UPDATE RUNNER SET ... WHERE
 * OWNERREQ = ? AND ...`) to every row of an owner its conditions select: server start
 * ({@link SERVER_START}) and the clean of finished rows ({@link FINISHED_DONE}). The values live
 * here only: the store asks {@link bulkMoveSql} for the SET and WHERE values it writes (SQL
 * stores) and {@link inBulkMove} for the rows it moves (the no-database store).
 */
export interface BulkMove {
  /** The rows it moves (besides the owner's), each condition on one state column. */
  readonly where: readonly BulkCondition[];
  readonly set: { readonly updatedInfo: UpdatedInfo };
}

/** One condition of a bulk move, on a RUNNER column (SQL name) with its SQL values. */
export type BulkCondition =
  | { readonly column: 'updatedinfo'; readonly op: 'in' | 'not in'; readonly value: readonly UpdatedInfo[] }
  | { readonly column: 'globallaststep'; readonly op: '='; readonly value: TaskStep }
  | { readonly column: 'stepstatus'; readonly op: 'in'; readonly value: readonly string[] };

/** A bulk move as the SQL stores write it: the SET columns and the WHERE conditions (SQL column names and values). */
export interface BulkMoveSql {
  readonly set: { readonly updatedinfo: UpdatedInfo };
  readonly where: readonly BulkCondition[];
}

/** The SQL column values of `move` (one UPDATE: SET, then WHERE besides OWNERREQ). */
export function bulkMoveSql(move: BulkMove): BulkMoveSql {
  return { set: { updatedinfo: move.set.updatedInfo }, where: move.where };
}

/** True when `row` is one `move` changes (the row by row form of its WHERE, for stores without SQL). */
export function inBulkMove(move: BulkMove, row: Pick<TransferRecord, 'updatedInfo' | 'globalLastStep' | 'stepStatus'>): boolean {
  return move.where.every((c) => {
    switch (c.column) {
      case 'updatedinfo': return c.value.includes(row.updatedInfo) === (c.op === 'in');
      case 'globallaststep': return row.globalLastStep === c.value;
      case 'stepstatus': return c.value.includes(row.stepStatus.char);
    }
  });
}

/** Server start (database.md §6.1): rows left RUNNING (a crash) or INTERRUPTED (a shutdown) are resubmitted. */
export const SERVER_START: BulkMove & { readonly from: readonly UpdatedInfo[] } = {
  from: HAND_BACK_FROM,
  where: [{ column: 'updatedinfo', op: 'in', value: HAND_BACK_FROM }],
  set: { updatedInfo: UpdatedInfo.TOSUBMIT },
};

/**
 * STEPSTATUS codes above `O`, compared as plain strings (code units) as the original does; a list
 * so that a case-insensitive or linguistic collation (MariaDB's, PostgreSQL's outside "C") cannot
 * put the lower-case codes ('d', 'f', ...) below 'O'.
 */
const CODES_ABOVE_O: readonly string[] = ERROR_CODES.map((c) => c.char).filter((c) => c > 'O');

/**
 * The clean of finished rows at a scheduler's start (database.md §"Clean"): GLOBALLASTSTEP
 * ALLDONETASK, UPDATEDINFO neither DONE nor UNKNOWN, STEPSTATUS above `O` -> DONE.
 */
export const FINISHED_DONE: BulkMove = {
  where: [
    { column: 'globallaststep', op: '=', value: TaskStep.ALLDONETASK },
    { column: 'updatedinfo', op: 'not in', value: [UpdatedInfo.DONE, UpdatedInfo.UNKNOWN] },
    { column: 'stepstatus', op: 'in', value: CODES_ABOVE_O },
  ],
  set: { updatedInfo: UpdatedInfo.DONE },
};
