/**
 * Puts a stored RUNNER row in the state a test needs (a partner's progress, a finished or failed
 * transfer, a row another process wrote) without running the transfer that would lead there: the
 * row read back with `change` applied, written as a row from elsewhere (`importRows`, the only
 * whole-row write of the store, decision 0047). STOPTRANS is `change.stop` or now. The product
 * writes rows through moves of the state machine and named updates only.
 */
import type { TransferStateChange } from '../../src/model/transfer-state.js';
import type { TransferKey } from '../../src/model/transfer.js';
import type { RunnerRepository } from '../../src/store/index.js';

/** False when no row has the key. */
export async function setStoredRow(runner: RunnerRepository, key: TransferKey, change: TransferStateChange): Promise<boolean> {
  const row = await runner.get(key);
  if (row === undefined) return false;
  const given = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  await runner.importRows([{ ...row, ...given, stop: change.stop ?? new Date() }]);
  return true;
}
