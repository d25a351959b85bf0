/**
 * The monitoring snapshot behind v2 `/v2/server/status` and v1 `GET /server`: counters over the
 * transfers updated during the last period, computed from the store (rest-v2.md §10.11).
 */
import { ErrorCode, type ErrorCodeName } from '../model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import type { RestServices } from './context.js';

export interface StatusSnapshot {
  date: Date;
  fromDate: Date;
  secondsRunning: number;
  networkConnections: number;
  /** Kilobits per second. */
  inBandwidth: number;
  outBandwidth: number;
  byStatus: Record<UpdatedInfo, number>;
  all: number;
  runningIn: number;
  runningOut: number;
  lastRunningIn: Date | null;
  lastRunningOut: Date | null;
  allIn: number;
  allOut: number;
  errorsIn: number;
  errorsOut: number;
  bySteps: Record<TaskStep, number>;
  /** Running transfers by step status character. */
  runningByStatus: Map<string, number>;
  /** Transfers by step status name. */
  byError: Map<ErrorCodeName, number>;
}

export async function statusSnapshot(services: RestServices, periodMs: number): Promise<StatusSnapshot> {
  const date = services.now();
  const fromDate = new Date(date.getTime() - periodMs);
  const rows: TransferRecord[] = await services.store.runner.list({ stopFrom: fromDate });
  const s: StatusSnapshot = {
    date, fromDate, secondsRunning: Math.floor((date.getTime() - services.startedAt.getTime()) / 1000),
    networkConnections: services.counters.networkConnections(),
    inBandwidth: Math.floor(services.counters.inBandwidth() / 128), outBandwidth: Math.floor(services.counters.outBandwidth() / 128),
    byStatus: [0, 0, 0, 0, 0, 0, 0] as unknown as Record<UpdatedInfo, number>, all: rows.length,
    runningIn: 0, runningOut: 0, lastRunningIn: null, lastRunningOut: null, allIn: 0, allOut: 0, errorsIn: 0, errorsOut: 0,
    bySteps: [0, 0, 0, 0, 0, 0] as unknown as Record<TaskStep, number>, runningByStatus: new Map(), byError: new Map(),
  };
  for (const r of rows) {
    s.byStatus[r.updatedInfo]++;
    s.bySteps[r.globalStep]++;
    // "Out" = this host sends the file (RETRIEVEMODE true).
    const out = r.retrieveMode;
    if (out) s.allOut++; else s.allIn++;
    if (r.updatedInfo === UpdatedInfo.INERROR || r.updatedInfo === UpdatedInfo.INTERRUPTED) { if (out) s.errorsOut++; else s.errorsIn++; }
    if (r.updatedInfo === UpdatedInfo.RUNNING) {
      if (out) { s.runningOut++; if (!s.lastRunningOut || r.stop > s.lastRunningOut) s.lastRunningOut = r.stop; }
      else { s.runningIn++; if (!s.lastRunningIn || r.stop > s.lastRunningIn) s.lastRunningIn = r.stop; }
      s.runningByStatus.set(r.stepStatus.char, (s.runningByStatus.get(r.stepStatus.char) ?? 0) + 1);
    }
    s.byError.set(r.stepStatus.name, (s.byError.get(r.stepStatus.name) ?? 0) + 1);
  }
  return s;
}

/** The error counters in the order both APIs list them; `key` is the v2 name. */
export const ERROR_COUNTERS: ReadonlyArray<[v2: string, v1: string, code: ErrorCodeName]> = [
  ['connectionImpossible', 'ConnectionImpossible', 'ConnectionImpossible'], ['serverOverloaded', 'ServerOverloaded', 'ServerOverloaded'],
  ['badAuthent', 'BadAuthent', 'BadAuthent'], ['externalOp', 'ExternalOp', 'ExternalOp'], ['transferError', 'TransferError', 'TransferError'],
  ['md5Error', 'MD5Error', 'MD5Error'], ['disconnection', 'Disconnection', 'Disconnection'], ['finalOp', 'FinalOp', 'FinalOp'],
  ['unimplemented', 'Unimplemented', 'Unimplemented'], ['internal', 'Internal', 'Internal'], ['warning', 'Warning', 'Warning'],
  ['queryAlreadyFinished', 'QueryAlreadyFinished', 'QueryAlreadyFinished'], ['queryStillRunning', 'QueryStillRunning', 'QueryStillRunning'],
  ['unknownHost', 'KnownHost', 'NotKnownHost'], ['remotelyUnknown', 'RemotelyUnknown', 'QueryRemotelyUnknown'],
  ['commandNotFound', 'CommandNotFound', 'CommandNotFound'], ['passThroughMode', 'PassThroughMode', 'PassThroughMode'],
  ['remoteShutdown', 'RemoteShutdown', 'RemoteShutdown'], ['shutdown', 'Shutdown', 'Shutdown'], ['remoteError', 'RemoteError', 'RemoteError'],
  ['stopped', 'Stopped', 'StoppedTransfer'], ['canceled', 'Canceled', 'CanceledTransfer'], ['fileNotFound', 'FileNotFound', 'FileNotFound'],
  ['unknown', 'Unknown', 'Unknown'],
];

export const RUNNING_COUNTERS: ReadonlyArray<[v2: string, v1: string, char: string]> = [
  ['running', 'Running', ErrorCode.Running.char], ['initOK', 'InitOk', ErrorCode.InitOk.char],
  ['preProcessingOk', 'PreProcessingOk', ErrorCode.PreProcessingOk.char], ['transferOk', 'TransferOk', ErrorCode.TransferOk.char],
  ['postProcessingOk', 'PostProcessingOk', ErrorCode.PostProcessingOk.char], ['completeOk', 'CompleteOk', ErrorCode.CompleteOk.char],
];
