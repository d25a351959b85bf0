/**
 * Stop, cancel and restart of a transfer for both REST generations. With the transfer engine
 * plugged in (`services.transfers`, same contract as TransferEngine) it decides; without it the
 * stored record is changed the way the engine does for a transfer not running on this host
 * (rest-v1.md §12.7), so REST behaves the same before the engine is wired.
 */
import { ErrorCode } from '../model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferKey } from '../model/transfer.js';
import type { ControlResult, RestServices } from './context.js';

export async function stopOrCancelTransfer(services: RestServices, key: TransferKey, kind: 'stop' | 'cancel'): Promise<ControlResult> {
  const engine = services.transfers;
  if (engine !== undefined) return kind === 'stop' ? engine.stop(key) : engine.cancel(key);
  const code = kind === 'stop' ? ErrorCode.StoppedTransfer : ErrorCode.CanceledTransfer;
  const record = await services.store.runner.get(key);
  if (record === undefined || record.updatedInfo === UpdatedInfo.DONE || record.globalStep === TaskStep.ALLDONETASK) {
    return { code: ErrorCode.TransferOk, message: `transfer ${key.specialId} is not known or already finished: nothing done` };
  }
  await services.store.runner.updateState(key, {
    updatedInfo: UpdatedInfo.INERROR, infoStatus: code, stepStatus: code, globalStep: TaskStep.ERRORTASK, ...(kind === 'cancel' ? { rank: 0 } : {}),
  });
  return { code: ErrorCode.CompleteOk, message: `transfer ${key.specialId} ${kind === 'stop' ? 'stopped' : 'cancelled'}` };
}

export async function restartTransfer(services: RestServices, key: TransferKey, at: Date | undefined): Promise<ControlResult> {
  const engine = services.transfers;
  if (engine !== undefined) return engine.restart(key, at);
  const record = await services.store.runner.get(key);
  if (record === undefined) return { code: ErrorCode.Internal, message: `transfer ${key.specialId} ${key.requester}->${key.requested} is not known` };
  if (record.globalStep === TaskStep.ALLDONETASK || record.updatedInfo === UpdatedInfo.DONE) {
    await services.store.runner.updateState(key, { infoStatus: ErrorCode.QueryAlreadyFinished });
    return { code: ErrorCode.CompleteOk, message: `transfer ${key.specialId} is already complete` };
  }
  // Resume from the last step reached, as the engine does.
  const step = record.globalLastStep;
  const status = step === TaskStep.PRETASK ? ErrorCode.InitOk : step === TaskStep.TRANSFERTASK ? ErrorCode.PreProcessingOk
    : step === TaskStep.POSTTASK ? ErrorCode.TransferOk : ErrorCode.Unknown;
  await services.store.runner.updateState(key, {
    globalStep: step, stepStatus: status, infoStatus: status, updatedInfo: UpdatedInfo.TOSUBMIT, start: at ?? services.now(),
  });
  return { code: ErrorCode.PreProcessingOk, message: `transfer ${key.specialId} resubmitted` };
}
