/**
 * The write methods of RUNNER every store shares (issue 33 item 2, decision 0047): each named write
 * is a set of columns handed to the store's one column write, `writeColumns(key, change)` (an UPDATE
 * on the key; a file rewrite without a database). The state columns come only from the state
 * machine (model/transfer-state.ts): `move` asks it here, `saveMoves` takes what it computed.
 */
import { transition, type RowFields, type StateChange, type StateColumn, type TransferMove, type TransferStateChange } from '../model/transfer-state.js';
import type { TransferKey } from '../model/transfer.js';
import type { MoveTarget, RunnerRepository, WrittenChange } from './repository-types.js';

/** The state columns: written only as the state machine computed them. */
const STATE_COLUMNS = ['globalStep', 'globalLastStep', 'stepStatus', 'updatedInfo'] as const satisfies readonly StateColumn[];

/**
 * The columns of one write: `fields`, then the state columns of `moved` (absent ones stay
 * unwritten), so a state column given in `fields` (a record passed as fields) is never written.
 */
function movedColumns(moved: StateChange | undefined, fields: RowFields): TransferStateChange {
  const change: TransferStateChange = Object.assign({}, moved, fields);
  for (const c of STATE_COLUMNS) {
    const v = moved?.[c];
    if (v !== undefined) (change as Record<StateColumn, unknown>)[c] = v;
    else if (change[c] !== undefined) delete change[c];
  }
  return change;
}

type NamedWrites = Pick<RunnerRepository, 'move' | 'saveMoves' | 'updateRank' | 'updateInfo' | 'reschedule' | 'updateFilename' | 'updateAlive'>;

export abstract class RunnerWrites implements NamedWrites {
  /** Writes the given columns of the row of `key`, STOPTRANS = `change.stop` or now; false when no row. */
  protected abstract writeColumns(key: TransferKey, change: TransferStateChange): Promise<boolean>;

  async move(row: MoveTarget, move: TransferMove, fields: RowFields = {}): Promise<WrittenChange | undefined> {
    // transition() throws illegalTransition()'s error before anything is written.
    const change = Object.assign(movedColumns(transition(row, move), fields), { stop: fields.stop ?? new Date() });
    return (await this.writeColumns(row, change)) ? change : undefined;
  }

  saveMoves(key: TransferKey, moved: StateChange | undefined, fields: RowFields): Promise<boolean> {
    return this.writeColumns(key, movedColumns(moved, fields));
  }

  updateRank(key: TransferKey, rank: number): Promise<boolean> {
    return this.writeColumns(key, { rank });
  }

  updateInfo(key: TransferKey, info: { fileInfo?: string; transferInfo?: string }): Promise<boolean> {
    return this.writeColumns(key, { fileInfo: info.fileInfo, transferInfo: info.transferInfo });
  }

  reschedule(key: TransferKey, at: Date, transferInfo?: string): Promise<boolean> {
    return this.writeColumns(key, { start: at, transferInfo });
  }

  updateFilename(key: TransferKey, filename: string): Promise<boolean> {
    return this.writeColumns(key, { filename });
  }

  updateAlive(key: TransferKey): Promise<boolean> {
    // No column but STOPTRANS, which every write stamps.
    return this.writeColumns(key, {});
  }
}
