/**
 * The boundary between the task subsystem and the transfer engine.
 *
 * Tasks read and change a transfer through `TaskContext` only. The engine builds one context per
 * task list it runs (pre, post or error), passes it to `runTaskList`, and afterwards persists what
 * the tasks changed (`transfer`, `currentFile`). Everything that needs the engine itself
 * (submitting a transfer, rescheduling, restarting the server, saving the record) goes through
 * the small hook interfaces at the end of this file, so this folder never imports the engine.
 */
import type { ErrorCodeInfo } from '../model/error-code.js';
import type { NotificationSender } from '../model/notifications.js';
import type { TransferMode } from '../model/rule.js';

/**
 * The fields of the transfer record (table RUNNER, database.md §3.3) that tasks read or change.
 * Names and types match the RUNNER model so the engine can hand its record object over as is.
 */
export interface TaskTransfer {
  specialId: bigint;
  requester: string;
  requested: string;
  idRule: string;
  mode: TransferMode;
  blockSize: number;
  /** Current block rank (final rank after the data transfer). */
  rank: number;
  /** File name as requested by the sender (possibly with a path): `#ORIGINALFULLPATH#`. */
  originalName: string;
  /** Current file path as stored in the record; MOVE/RENAME/... update it. */
  filename: string;
  /** Set by tasks that move or repoint the file. */
  isMoved: boolean;
  /** Transfer information typed by the user (`-info`): the "argTransfer" of tasks (§5). */
  fileInfo: string;
  /** Free text then one JSON object of technical data (tasks.md §10); see transfer-info.ts. */
  transferInfo: string;
  /** Info status; a task ending in Warning sets it to `W`, a failing task to its code. */
  infoStatus: ErrorCodeInfo;
  /** Creation or planned start time; RESCHEDULE sets the next attempt time here. */
  start: Date;
  stop: Date;
}

/** Directories of the host for this transfer, absolute. Undefined = cannot be resolved. */
export interface TaskDirectories {
  /** Server home directory (`#HOMEPATH#`); relative task paths are resolved against it. */
  home: string;
  /** Rule receive directory, or the global one when the rule has none (`#INPATH#`). */
  in?: string;
  /** Send directory (`#OUTPATH#`). */
  out?: string;
  /** Work directory (`#WORKPATH#`). */
  work?: string;
  /** Archive directory (`#ARCHPATH#`). */
  arch?: string;
}

/** What the session knows about the two hosts. */
export interface TaskSession {
  /** Local host id (the TLS id on a TLS session); null without authentication. */
  localHostId: string | null;
  /** Authenticated partner id; null without authentication (`#REMOTEHOST#` then stays as is). */
  remoteHostId: string | null;
  /** Socket addresses as `/<ip>:<port>`; null without a network session (`unknown`). */
  localAddress: string | null;
  remoteAddress: string | null;
  /** True when this host sends the file in this session (S lists), false when it receives. */
  isSender: boolean;
  /** True when this host initiated the transfer (RESCHEDULE only works there). */
  isRequester: boolean;
  /** True when the authenticated partner holds the SYSTEM role (RESTART needs it). */
  partnerIsSystem: boolean;
}

/** The error that the session is handling (error lists, RESCHEDULE `-case`, `#ERRORCODE#`). */
export interface TaskError {
  code: ErrorCodeInfo;
  message: string;
}

/** Structured enough for pino (a pino logger satisfies it), simple enough for tests. */
export interface TaskLogger {
  trace(msg: string): void;
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** A new transfer requested by the TRANSFER task (options of the `send` command). */
export interface TransferSubmission {
  /** Partner id as written (the engine resolves aliases). */
  to: string;
  file?: string;
  rule?: string;
  /** Re-use of an existing transfer id (rule and file then come from that record). */
  id?: bigint;
  blockSize?: number;
  md5: boolean;
  /** Planned start; undefined = as soon as possible. */
  start?: Date;
  noFollow: boolean;
  noLog: boolean;
  /** true = `-logWarn`, false = `-notlogWarn`, undefined = configured default. */
  logWarn?: boolean;
  /** Final transfer information, follow id already appended when needed. */
  info: string;
}

/** Engine hook for TRANSFER: writes the new transfer as TOSUBMIT for the scheduler. */
export interface TransferSubmitter {
  /** Returns the id of the submitted transfer; throws with a clear message when refused. */
  submit(request: TransferSubmission): Promise<bigint>;
}

/** Engine hook for RESCHEDULE. */
export interface TransferRescheduler {
  /**
   * Resets the current transfer for a later attempt at `at`: status TOSUBMIT, step kept, marked
   * rescheduled (tasks.md §8 RESCHEDULE). The task has already set `transfer.start`.
   */
  reschedule(at: Date): Promise<void>;
}

/** Engine hook for RESTART; only a server provides it. */
export interface ServerRestarter {
  /** Flags "restart after shutdown" and starts shutdown + restart after `delayMs`. */
  restartAfter(delayMs: number): void;
}

/** Engine hook to persist the record now (plug-ins that change the transfer information). */
export interface RecordSaver {
  save(): Promise<void>;
}

/** Everything the engine lends to tasks. Absent hooks make the dependent task fail cleanly. */
export interface EngineHooks {
  /** The running SNMP agent's notifier, if any (SNMP task); a server hands it down. */
  snmp?: () => NotificationSender | undefined;
  transfers?: TransferSubmitter;
  rescheduler?: TransferRescheduler;
  /** Present only when the local program is a server (RESTART). */
  restarter?: ServerRestarter;
  records?: RecordSaver;
  /** Called before and after each task: long tasks must not drop the connection (tasks.md §3). */
  keepAlive?(): void;
}

/** Host options tasks read. */
export interface TaskOptions {
  /** Default `delay` of a task written `<delay/>` (server `timeoutcon`). */
  defaultTimeoutMs?: number;
}

/** What one run of a task list works on. Mutable fields are changed by tasks. */
export interface TaskContext {
  /** The transfer record; null when tasks run outside a transfer (business requests). */
  transfer: TaskTransfer | null;
  session: TaskSession;
  dirs: TaskDirectories;
  /** Absolute path of the current file, or null when there is none (`nofile`). */
  currentFile: string | null;
  /** The error being handled, null outside error lists. */
  error: TaskError | null;
  /** Set once RESCHEDULE rescheduled this transfer during this run. */
  rescheduled: boolean;
  logger: TaskLogger;
  engine: EngineHooks;
  options?: TaskOptions;
  /** Clock, injectable for tests of `#DATE#`/`#HOUR#` and RESCHEDULE. */
  now?: () => Date;
}

/** The context's clock. */
export function nowOf(ctx: TaskContext): Date {
  return ctx.now ? ctx.now() : new Date();
}

/** Points the current file and the record at `path` and marks the record moved. */
export function repointCurrentFile(ctx: TaskContext, path: string): void {
  ctx.currentFile = path;
  if (ctx.transfer) {
    ctx.transfer.filename = path;
    ctx.transfer.isMoved = true;
  }
}

/** One-line description of the session for logs (LOG task, failures). */
export function describeSession(ctx: TaskContext): string {
  const t = ctx.transfer;
  if (!t) return `no transfer (local ${ctx.session.localHostId ?? '?'}, remote ${ctx.session.remoteHostId ?? '?'})`;
  return `transfer ${t.specialId} ${t.requester}->${t.requested} rule ${t.idRule} file ${ctx.currentFile ?? 'nofile'}`;
}
