/**
 * Orders on a stored RUNNER row that does not run on this host (database.md §6.1 "Stop / cancel of
 * a record that is not running", "Restart (reset)"): the one implementation the engine (for its
 * own not-running rows and the partners' orders) and the order service (without an engine: CLI,
 * REST before the engine starts) share. The state columns come from src/transfer/state.ts.
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';
import { UpdatedInfo, type TransferKey, type TransferRecord } from '../model/transfer.js';
import type { RunnerRepository } from '../store/index.js';
import { isFinished } from '../transfer/state.js';
import type { TransferFileSystem } from '../transfer/file/storage.js';
import { removeQuietly } from '../transfer/placement.js';

/** The answer of an order (as the admin command answers it, r66-protocol.md §9.9), with the row after it. */
export interface OrderResult {
  /**
   * stop/cancel: CompleteOk (done), TransferOk (nothing to do: unknown or finished). restart:
   * PreProcessingOk (resubmitted), CompleteOk (already complete), QueryStillRunning, Internal (unknown).
   */
  code: ErrorCodeInfo;
  message: string;
  /** The row after the order, when it exists. */
  record?: TransferRecord;
}

export function keyOf(r: TransferKey): TransferKey {
  return { specialId: r.specialId, requester: r.requester, requested: r.requested, ownerReq: r.ownerReq };
}

/** The partial work file of a row (a `.r66` file this host was receiving), or null. */
export function workFileOf(r: TransferRecord): string | null {
  return !r.retrieveMode && !r.isMoved && r.filename.endsWith('.r66') ? r.filename : null;
}

/**
 * Stop or cancel of a row not running here: INERROR with `H` or `K` (cancel: rank 0 and the
 * partial work file removed). An unknown or finished row: TransferOk, nothing written.
 */
export async function stopOrCancelStored(runner: RunnerRepository, files: TransferFileSystem, key: TransferKey, kind: 'stop' | 'cancel'): Promise<OrderResult> {
  const record = await runner.get(key);
  if (record === undefined || isFinished(record)) {
    return { code: ErrorCode.TransferOk, message: `transfer ${key.specialId} is not known or already finished: nothing done`, ...(record ? { record } : {}) };
  }
  // The state machine checks the move before anything is written; the partial file goes after.
  const written = await runner.move(record, { kind: kind === 'stop' ? 'stopRecord' : 'cancelRecord' });
  if (kind === 'cancel') await removeQuietly(files, workFileOf(record));
  const after = { ...record, ...written };
  return { code: ErrorCode.CompleteOk, message: `transfer ${key.specialId} ${kind === 'stop' ? 'stopped' : 'cancelled'}`, record: after };
}

/**
 * Restart of a stored row: back to its restart point, TOSUBMIT at `at`, for the scheduler. A
 * finished row only gets INFOSTATUS `Q` (CompleteOk "already complete"); an unknown one is
 * Internal; a row RUNNING is refused (QueryStillRunning) unless `runningRowAllowed` (the engine
 * knows it is not running here: a row left RUNNING by a crash).
 */
export async function restartStored(runner: RunnerRepository, key: TransferKey, at: Date, runningRowAllowed: boolean): Promise<OrderResult> {
  const record = await runner.get(key);
  if (record === undefined) return { code: ErrorCode.Internal, message: `transfer ${key.specialId} ${key.requester}->${key.requested} is not known` };
  if (isFinished(record)) {
    const written = await runner.move(record, { kind: 'alreadyFinished' });
    return { code: ErrorCode.CompleteOk, message: `transfer ${key.specialId} is already complete`, record: { ...record, ...written } };
  }
  if (!runningRowAllowed && record.updatedInfo === UpdatedInfo.RUNNING) return { code: ErrorCode.QueryStillRunning, message: `transfer ${key.specialId} is running`, record };
  const written = await runner.move(record, { kind: 'restart', at });
  return { code: ErrorCode.PreProcessingOk, message: `transfer ${key.specialId} resubmitted`, record: { ...record, ...written } };
}

/** An order's answer as the typed error of a refusal (resubmit: anything but PreProcessingOk). */
export function refusalOf(result: OrderResult): R66Error | null {
  if (result.code === ErrorCode.PreProcessingOk) return null;
  // "Already complete" is a success answer for restart, a refusal for a resubmission (cli.md §3.3).
  const code = result.code === ErrorCode.CompleteOk ? ErrorCode.QueryAlreadyFinished : result.code;
  const message = result.code === ErrorCode.CompleteOk ? `transfer ${result.record?.specialId ?? ''} is already finished` : result.message;
  return new R66Error(code, message);
}
