/**
 * What the REST handlers may use: the loaded configuration, the open store, and the few live
 * operations of the running server. The server wiring fills it; tests build one over a real store.
 * Handlers stay thin: they validate, call these, and shape the answer.
 */
import type { Logger } from 'pino';
import type { RestConfig, ServerConfig } from '../config/index.js';
import type { AuthGuard } from './auth-guard.js';
import type { ErrorCodeInfo } from '../model/error-code.js';
import type { Notify } from '../model/notifications.js';
import type { TransferKey } from '../model/transfer.js';
import type { TransferOrders } from '../operations/index.js';
import type { Store } from '../store/index.js';
import type { TaskRegistry } from '../tasks/index.js';

/** Live bandwidth limits in bytes per second (0 = unlimited) and the check delay in ms. */
export interface LiveLimits {
  readGlobal: number;
  writeGlobal: number;
  readSession: number;
  writeSession: number;
  delay: number;
}

/** The live traffic shaper of the server (bandwidth.md); REST reads and changes it. */
export interface BandwidthControl {
  get(): LiveLimits;
  set(limits: LiveLimits): void;
}

/** Outcome of a transfer order (the transfer engine's ControlResult). */
export interface ControlResult {
  /**
   * stop/cancel: CompleteOk (done), TransferOk (nothing to do); restart: PreProcessingOk
   * (resubmitted), CompleteOk (already complete), QueryStillRunning, Internal (unknown).
   */
  code: ErrorCodeInfo;
  message: string;
}

/**
 * Transfer orders, with the transfer engine's contract (src/transfer TransferEngine satisfies it):
 * a running transfer is interrupted, a stored one is updated. The server passes its engine here.
 */
export interface TransferControl {
  stop(ref: TransferRef): Promise<ControlResult>;
  cancel(ref: TransferRef): Promise<ControlResult>;
  restart(ref: TransferRef, at?: Date): Promise<ControlResult>;
  isRunning(ref: TransferRef): boolean;
  /** True while new transfers are blocked by order (the engine's one block state). */
  readonly requestsBlocked?: boolean;
}

/** The transfer identity the engine needs (its owner is this server). */
export type TransferRef = Pick<TransferKey, 'specialId' | 'requester' | 'requested'>;

/**
 * Business tasks a v1 `/business` request may run (rest-v1.md §12.2), by registered name
 * (`className`). `result` is the task's text answer, when it gives one.
 */
export interface BusinessRunner {
  has(className: string): boolean;
  run(req: { className: string; arguments: string; extraArguments: string | null; delayMs: number; user: string }): Promise<{ ok: boolean; result: string | null }>;
}

/** Last report of one FileWatcher (filewatcher.md §5.2), kept in memory by the server. */
export interface FileMonitorFile {
  path: string;
  hash: string | null;
  lastTime: number | null;
  usedTime: number | null;
  used: boolean;
  id: string;
}

export interface FileMonitorReport {
  name: string;
  host: string;
  lastUpdate: number;
  /** Present when the monitor sent its detailed information. */
  detail?: {
    globalOk: number; globalError: number; todayOk: number; todayError: number; interval: number;
    stopFile: string; statusFile: string; subDirs: boolean; directories: string[]; files: FileMonitorFile[];
  };
}

export interface FileMonitorSource {
  list(): FileMonitorReport[];
}

/** Counters of the running server that the status operations report. */
export interface RuntimeCounters {
  /** R66 network connections open now (accepted and outgoing). */
  networkConnections(): number;
  /** Local channels at work: transfers running now (the pages' "active channels"). */
  activeChannels(): number;
  /** Current throughput in bytes per second. */
  inBandwidth(): number;
  outBandwidth(): number;
}

export interface RestServices {
  config: ServerConfig;
  store: Store;
  log: Logger;
  bandwidth: BandwidthControl;
  /** Undefined until the transfer engine runs: records are then updated directly. */
  transfers?: TransferControl;
  /**
   * The order service (src/operations) REST v1, v2 and the web pages call, built by the
   * composition (src/server/rest-services.ts) with `transfers` as its live engine and the file
   * policy of remote orders (the host's directories and server.xml readabledirs).
   */
  orders: TransferOrders;
  /** Registered business tasks; without it every business request names an unknown task. */
  business?: BusinessRunner;
  fileMonitors: FileMonitorSource;
  /**
   * The task types of this server, as its transfer engine runs them (built-in types and the
   * extendTaskFactory plug-ins): rule requests and configuration imports are checked against it.
   * Without it, the built-in types.
   */
  tasks?: TaskRegistry;
  counters: RuntimeCounters;
  /** Orderly shutdown, optionally followed by a restart; called after the answer is sent. */
  shutdown(restart: boolean): void;
  /** Blocks (true) or unblocks new transfer requests. */
  blockRequests(block: boolean): void;
  /** SNMP notifications of the administration orders (the server's hub); absent: none. */
  notify?: Notify;
  startedAt: Date;
  now(): Date;
}

/** One listener: the services plus its own `rest` section. */
export interface RestListenerContext {
  services: RestServices;
  rest: RestConfig;
  /** Failed-authentication lockout of this listener (auth-guard.ts guardOf() makes it on first use). */
  guard?: AuthGuard;
}

/** A bandwidth control holding the values in memory (start values from server.xml `limit`). */
export function memoryBandwidth(config: ServerConfig): BandwidthControl {
  let current: LiveLimits = {
    readGlobal: config.limits.globalLimit, writeGlobal: config.limits.globalLimit,
    readSession: config.limits.sessionLimit, writeSession: config.limits.sessionLimit, delay: config.limits.delayLimit,
  };
  return { get: () => ({ ...current }), set: (l) => { current = { ...l }; } };
}

/**
 * The original's live rule for new limits (rest-v1.md §12.1): values <= 0 mean unlimited (0) and a
 * session limit above its global limit is lowered to it.
 */
export function normaliseLimits(l: LiveLimits): LiveLimits {
  const pos = (v: number): number => (v > 0 ? v : 0);
  const readGlobal = pos(l.readGlobal);
  const writeGlobal = pos(l.writeGlobal);
  let readSession = pos(l.readSession);
  let writeSession = pos(l.writeSession);
  if (readGlobal < readSession) readSession = readGlobal;
  if (writeGlobal < writeSession) writeSession = writeGlobal;
  return { readGlobal, writeGlobal, readSession, writeSession, delay: pos(l.delay) };
}
