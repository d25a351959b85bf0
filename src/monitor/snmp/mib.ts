/**
 * The original's private MIB (monitoring.md §B.4), root 1.3.6.1.4.1.66666.66, every object a
 * read-only scalar `.<group>.<n>.0`, and the standard system group (§B.3). Values come from a
 * snapshot of this host's transfers started since the agent started, counted by the database
 * (RunnerRepository.tally) at most every `minimaldelay` ms, plus live figures (up time, memory, bandwidth).
 */
import { TaskStep, UpdatedInfo } from '../../model/transfer.js';
import type { TransferTally } from '../../store/index.js';

export const ROOT = '1.3.6.1.4.1.66666.66';
export const SYSTEM = '1.3.6.1.2.1.1';

export type ValueKind = 'string' | 'oid' | 'ticks' | 'integer' | 'gauge' | 'counter';

export interface MibObject {
  /** OID without the `.0` instance suffix. */
  oid: string;
  name: string;
  kind: ValueKind;
  value: (v: MibValues) => string | number;
}

/** Counts over the transfers this agent considers (§B.4: owned by this host, started since the agent start). */
export interface TransferCounts {
  inbound: number;
  outbound: number;
  runningInbound: number;
  runningOutbound: number;
  errorInbound: number;
  errorOutbound: number;
  lastInbound: number;
  lastOutbound: number;
  byStatus: Map<UpdatedInfo, number>;
  byStep: Map<TaskStep, number>;
  /** RUNNING transfers by step status character. */
  runningByStepStatus: Map<string, number>;
  /** By info status character. */
  byInfo: Map<string, number>;
  all: number;
}

export interface MibValues {
  counts: TransferCounts;
  hostId: string;
  version: string;
  /** R66 port for applApplicationProtocol. */
  port: number;
  /** Agent start (ms since epoch) and last status change. */
  startedAt: number;
  lastChange: number;
  operStatus: number;
  throughput: { read: number; write: number };
  connections: number;
  names: SystemNames;
}

export interface SystemNames {
  sysDescr: string;
  sysContact: string;
  sysName: string;
  sysLocation: string;
  applName: string;
  applDescription: string;
  applUrl: string;
}

/** TimeTicks (1/100 s) since the agent start, never negative. */
export function ticksSince(startedAt: number, at: number): number {
  return Math.max(0, Math.floor((at - startedAt) / 10));
}

export function countTransfers(groups: readonly TransferTally[]): TransferCounts {
  const c: TransferCounts = {
    inbound: 0, outbound: 0, runningInbound: 0, runningOutbound: 0, errorInbound: 0, errorOutbound: 0, lastInbound: 0, lastOutbound: 0,
    byStatus: new Map(), byStep: new Map(), runningByStepStatus: new Map(), byInfo: new Map(), all: 0,
  };
  const add = <K>(m: Map<K, number>, k: K, n: number): void => void m.set(k, (m.get(k) ?? 0) + n);
  for (const g of groups) {
    const n = g.count;
    const running = g.updatedInfo === UpdatedInfo.RUNNING;
    const inError = g.updatedInfo === UpdatedInfo.INERROR;
    if (g.inbound) {
      c.inbound += n;
      if (running) c.runningInbound += n;
      if (inError) c.errorInbound += n;
      c.lastInbound = Math.max(c.lastInbound, g.lastStart.getTime());
    } else {
      c.outbound += n;
      if (running) c.runningOutbound += n;
      if (inError) c.errorOutbound += n;
      c.lastOutbound = Math.max(c.lastOutbound, g.lastStart.getTime());
    }
    c.all += n;
    add(c.byStatus, g.updatedInfo, n);
    add(c.byStep, g.globalStep, n);
    if (running) add(c.runningByStepStatus, g.stepStatus, n);
    add(c.byInfo, g.infoStatus, n);
  }
  return c;
}

const scalar = (oid: string, name: string, kind: ValueKind, value: MibObject['value']): MibObject => ({ oid, name, kind, value });
const kib = (bytes: number): number => Math.floor(bytes / 1024);

/** The system group (§B.3). */
export const SYSTEM_OBJECTS: MibObject[] = [
  scalar(`${SYSTEM}.1`, 'sysDescr', 'string', (v) => v.names.sysDescr),
  scalar(`${SYSTEM}.2`, 'sysObjectID', 'oid', () => ROOT),
  scalar(`${SYSTEM}.3`, 'sysUpTime', 'ticks', (v) => ticksSince(v.startedAt, Date.now())),
  scalar(`${SYSTEM}.4`, 'sysContact', 'string', (v) => v.names.sysContact),
  scalar(`${SYSTEM}.5`, 'sysName', 'string', (v) => v.names.sysName),
  scalar(`${SYSTEM}.6`, 'sysLocation', 'string', (v) => v.names.sysLocation),
  scalar(`${SYSTEM}.7`, 'sysServices', 'integer', () => 72),
];

const STATUS_ORDER = [UpdatedInfo.UNKNOWN, UpdatedInfo.NOTUPDATED, UpdatedInfo.INTERRUPTED, UpdatedInfo.TOSUBMIT, UpdatedInfo.INERROR, UpdatedInfo.RUNNING, UpdatedInfo.DONE];
const STATUS_NAMES = ['nbInfoUnknown', 'nbInfoNotUpdated', 'nbInfoInterrupted', 'nbInfoToSubmit', 'nbInfoError', 'nbInfoRunning', 'nbInfoDone'];
const STEP_NAMES = ['nbStepNotask', 'nbStepPretask', 'nbStepTransfer', 'nbStepPosttask', 'nbStepAllDone', 'nbStepError'];
const RUNNING_STEP: Array<[string, string]> = [['nbRunningStep', 'z'], ['nbInitOkStep', 'i'], ['nbPreProcessingOkStep', 'B'], ['nbTransferOkStep', 'X'], ['nbPostProcessingOkStep', 'P'], ['nbCompleteOkStep', 'O']];
const ERROR_CODES: Array<[string, string]> = [
  ['nbStatusConnectionImpossible', 'C'], ['nbStatusServerOverloaded', 'l'], ['nbStatusBadAuthent', 'A'], ['nbStatusExternalOp', 'E'], ['nbStatusTransferError', 'T'],
  ['nbStatusMD5Error', 'M'], ['nbStatusDisconnection', 'D'], ['nbStatusFinalOp', 'F'], ['nbStatusUnimplemented', 'U'], ['nbStatusInternal', 'I'], ['nbStatusWarning', 'W'],
  ['nbStatusQueryAlreadyFinished', 'Q'], ['nbStatusQueryStillRunning', 's'], ['nbStatusNotKnownHost', 'N'], ['nbStatusQueryRemotelyUnknown', 'u'],
  ['nbStatusCommandNotFound', 'c'], ['nbStatusPassThroughMode', 'p'], ['nbStatusRemoteShutdown', 'r'], ['nbStatusShutdown', 'S'], ['nbStatusRemoteError', 'R'],
  ['nbStatusStopped', 'H'], ['nbStatusCanceled', 'K'], ['nbStatusFileNotFound', 'f'], ['nbStatusUnknown', '-'],
];

/** Groups 1-4 of the private MIB, in OID order. */
export const PRIVATE_OBJECTS: MibObject[] = [
  scalar(`${ROOT}.1.1`, 'applName', 'string', (v) => v.names.applName),
  scalar(`${ROOT}.1.2`, 'applServerName', 'string', (v) => v.hostId),
  scalar(`${ROOT}.1.3`, 'applVersion', 'string', (v) => v.version),
  scalar(`${ROOT}.1.4`, 'applDescription', 'string', (v) => v.names.applDescription),
  scalar(`${ROOT}.1.5`, 'applURL', 'string', (v) => v.names.applUrl),
  scalar(`${ROOT}.1.6`, 'applApplicationProtocol', 'oid', (v) => `${ROOT}.1.1.4.${v.port}`),
  scalar(`${ROOT}.2.1`, 'applUptime', 'ticks', (v) => ticksSince(v.startedAt, Date.now())),
  scalar(`${ROOT}.2.2`, 'applOperStatus', 'integer', (v) => v.operStatus),
  scalar(`${ROOT}.2.3`, 'applLastChange', 'ticks', (v) => ticksSince(v.startedAt, v.lastChange)),
  scalar(`${ROOT}.2.4`, 'applInboundAssociations', 'gauge', (v) => v.counts.runningInbound),
  scalar(`${ROOT}.2.5`, 'applOutboundAssociations', 'gauge', (v) => v.counts.runningOutbound),
  scalar(`${ROOT}.2.6`, 'applAccumInboundAssociations', 'counter', (v) => v.counts.inbound),
  scalar(`${ROOT}.2.7`, 'applAccumOutboundAssociations', 'counter', (v) => v.counts.outbound),
  scalar(`${ROOT}.2.8`, 'applLastInboundActivity', 'ticks', (v) => (v.counts.lastInbound === 0 ? 0 : ticksSince(v.startedAt, v.counts.lastInbound))),
  scalar(`${ROOT}.2.9`, 'applLastOutboundActivity', 'ticks', (v) => (v.counts.lastOutbound === 0 ? 0 : ticksSince(v.startedAt, v.counts.lastOutbound))),
  scalar(`${ROOT}.2.10`, 'applRejectedInboundAssociations', 'counter', (v) => v.counts.errorInbound),
  scalar(`${ROOT}.2.11`, 'applFailedOutboundAssociations', 'counter', (v) => v.counts.errorOutbound),
  scalar(`${ROOT}.2.12`, 'applInboundBandwidthKBS', 'gauge', (v) => kib(v.throughput.read)),
  scalar(`${ROOT}.2.13`, 'applOutboundBandwidthKBS', 'gauge', (v) => kib(v.throughput.write)),
  ...STATUS_ORDER.map((s, i) => scalar(`${ROOT}.2.${14 + i}`, STATUS_NAMES[i] ?? '', 'gauge', (v) => v.counts.byStatus.get(s) ?? 0)),
  scalar(`${ROOT}.2.21`, 'nbStepAllTransfer', 'gauge', (v) => v.counts.all),
  scalar(`${ROOT}.2.22`, 'memoryTotal', 'gauge', () => kib(process.memoryUsage().heapTotal + process.memoryUsage().external)),
  scalar(`${ROOT}.2.23`, 'memoryFree', 'gauge', () => kib(Math.max(0, process.memoryUsage().heapTotal - process.memoryUsage().heapUsed))),
  scalar(`${ROOT}.2.24`, 'memoryUsed', 'gauge', () => kib(process.memoryUsage().rss)),
  // One event loop; the figure the original gives for its threads is the libuv pool size here.
  scalar(`${ROOT}.2.25`, 'nbThreads', 'gauge', () => Number(process.env.UV_THREADPOOL_SIZE ?? 4) + 1),
  scalar(`${ROOT}.2.26`, 'nbNetworkConnection', 'gauge', (v) => v.connections),
  ...STEP_NAMES.map((name, i) => scalar(`${ROOT}.3.${i + 1}`, name, 'gauge', (v) => v.counts.byStep.get(i as TaskStep) ?? 0)),
  scalar(`${ROOT}.3.7`, 'nbAllRunningStep', 'gauge', (v) => v.counts.runningInbound + v.counts.runningOutbound),
  ...RUNNING_STEP.map(([name, code], i) => scalar(`${ROOT}.3.${8 + i}`, name, 'gauge', (v) => v.counts.runningByStepStatus.get(code) ?? 0)),
  ...ERROR_CODES.map(([name, code], i) => scalar(`${ROOT}.4.${i + 1}`, name, 'gauge', (v) => v.counts.byInfo.get(code) ?? 0)),
];

