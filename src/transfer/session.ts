/**
 * One transfer on one local channel, once the Request is agreed (r66-protocol.md §9.3, §9.4): the
 * same code serves the four roles, split by "am I the sender of the file". It runs the task lists
 * through src/tasks, the data phase (data-sender.ts / data-receiver.ts), the end handshake
 * (EndTransfer then EndRequest, always started by the sender) and the error path (§9.7).
 */
import path from 'node:path';
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { isMd5Mode, type Rule } from '../model/rule.js';
import { TaskStep, type TransferRecord } from '../model/transfer.js';
import type { LocalChannel } from '../net/channel.js';
import type { BlockReader } from './block-reader.js';
import type { TransferStorage } from './file/storage.js';
import { R66Error } from '../model/r66-error.js';
import { fileErrorText } from '../net/errors.js';
import { reportFdExhaustion } from '../net/fd-limit.js';
import type { AuthenticatedPartner } from '../net/partner.js';
import { unexpected } from '../net/commands/unexpected.js';
import { encodeValidCommand, errorPacket, errorPacketOf, PacketType, parseStoppedRank, type Packet } from '../protocol/index.js';
import { runTaskList, tasksFor, type TaskContext, type TaskListOutcome, type TaskListStep } from '../tasks/index.js';
import type { EngineCore } from './core.js';
import { isDatabaseUnavailable } from '../store/index.js';
import { RowWriteError, RunnerRow } from './persistence.js';
import { aliveWindowMs, heartbeatMs } from './alive.js';
import { removeQuietly, type RuleDirectories } from './placement.js';
import type { SessionShaper } from './shaper.js';
import type { ThroughStream } from './through.js';
import type { AttemptSignals, TransferOutcome } from './types.js';

export interface SessionInit {
  core: EngineCore;
  row: RunnerRow;
  rule: Rule;
  dirs: RuleDirectories;
  channel: LocalChannel;
  partner: AuthenticatedPartner;
  isRequester: boolean;
  isSender: boolean;
}

export class TransferSession {
  readonly core: EngineCore;
  readonly row: RunnerRow;
  readonly rule: Rule;
  readonly dirs: RuleDirectories;
  readonly channel: LocalChannel;
  readonly partner: AuthenticatedPartner;
  readonly isRequester: boolean;
  readonly isSender: boolean;
  /** Absolute local file: the sender's source, the receiver's work file then final file. */
  file: string | null = null;
  /**
   * The receiver's work file as startWorkFile() creates it, kept open for the data loop (one open
   * and one close per file less). A promise: the Request answer does not wait for the creation
   * (receiver.ts, startWorkFile()). Never rejects unhandled; closed by closeWorkHandle() when the
   * data loop never took it.
   */
  workHandle: Promise<TransferStorage> | null = null;
  /** Expected size (receiver) or real size (sender); -1 unknown. */
  size = -1;
  /** Block compression agreed for this transfer (r66-protocol.md §11). */
  compression = false;
  /** Negotiated limit (bytes/s, 0 = none). */
  limit = 0;
  shaper: SessionShaper | null = null;
  /** Set by abort(): a local stop/cancel/shutdown. */
  abortError: Error | null = null;
  private abortWaiters: Array<(e: Error) => void> = [];
  /** Bytes moved in this session. */
  bytes = 0;
  /** Through modes on the requester: the application's stream instead of a file (through.ts). */
  through: ThroughStream | null = null;
  /** Bytes the through sink received (the receiver's size check). */
  throughWritten = 0;
  /**
   * The requester's row had never been attempted (set by runRequester): a partner that calls it
   * finished is telling about another transfer with the same id.
   */
  neverStartedBefore = false;
  /** The requester's caller, told of the waits for the partner and of the decision (runRequester()); null when none. */
  signals: AttemptSignals | null = null;
  /** The sender's reader, opened by the requester while it waits for the Request answer (block-reader.ts). */
  earlyReader: Promise<BlockReader> | null = null;
  /** The close of the sender's file, which the data pump does not wait for. */
  sourceClosed: Promise<void> | null = null;
  private errorTasksDone = false;

  constructor(init: SessionInit) {
    this.core = init.core;
    this.row = init.row;
    this.rule = init.rule;
    this.dirs = init.dirs;
    this.channel = init.channel;
    this.partner = init.partner;
    this.isRequester = init.isRequester;
    this.isSender = init.isSender;
  }

  get record(): TransferRecord {
    return this.row.record;
  }

  get md5(): boolean {
    return isMd5Mode(this.record.mode);
  }

  get logger(): EngineCore['logger'] {
    return this.core.logger;
  }

  /** Closes what the data phase left open (an unused early reader, the source file being closed). */
  async release(): Promise<void> {
    const early = this.earlyReader;
    this.earlyReader = null;
    await early?.then((r) => r.close(), () => undefined);
    await this.sourceClosed;
  }

  /** Ends the session locally: the next wait or block sees `err`. */
  abort(err: Error): void {
    if (this.abortError) return;
    this.abortError = err;
    for (const w of this.abortWaiters.splice(0)) w(err);
  }

  /** A receive started earlier (the sender's watch during the data phase), consumed by next(). */
  pendingPacket: Promise<Packet> | null = null;

  /** The next packet of the channel, or the local abort, whichever comes first. */
  next(timeoutMs?: number, what?: string): Promise<Packet> {
    if (this.abortError) return Promise.reject(this.abortError);
    const source = this.pendingPacket ?? this.channel.receive(timeoutMs, what);
    this.pendingPacket = null;
    return new Promise<Packet>((resolve, reject) => {
      const onAbort = (e: Error): void => reject(e);
      this.abortWaiters.push(onAbort);
      source.then(
        (p) => {
          this.abortWaiters = this.abortWaiters.filter((w) => w !== onAbort);
          // The partner's shutdown notice may come at any point of the conversation (§9.12).
          if (isShutdownNotice(p)) reject(this.partnerShutdown(p));
          else resolve(p);
        },
        (e: unknown) => {
          this.abortWaiters = this.abortWaiters.filter((w) => w !== onAbort);
          reject(e as Error);
        },
      );
    });
  }

  /**
   * The partner's "Shutdown forced" notice (r66-protocol.md §9.12): the transfer ends with `S`,
   * resumable; a lower rank given becomes the restart rank; a receiver told no rank answers with
   * its own so the sender can restart from it.
   */
  private partnerShutdown(p: Packet): R66Error {
    const rank = shutdownRank(p);
    if (rank !== null && rank >= 0 && rank < this.record.rank) this.record.rank = rank;
    if (rank === null && !this.isSender) void this.channel.send(encodeValidCommand({ cmd: 'shutdownNotice', rank: this.record.rank })).catch(() => undefined);
    return new R66Error(ErrorCode.Shutdown, `Shutdown forced by ${this.partner.hostId}`, { fromPartner: true });
  }

  // ---------------------------------------------------------------- tasks

  taskContext(step: TaskListStep, error: { code: ErrorCodeInfo; message: string } | null): TaskContext {
    const conn = this.channel.connection;
    const sock = conn.socket;
    return {
      transfer: this.record,
      session: {
        localHostId: this.isRequester ? this.record.requester : this.record.requested,
        remoteHostId: this.partner.hostId,
        localAddress: sock.localAddress ? `/${sock.localAddress}:${sock.localPort}` : null,
        remoteAddress: sock.remoteAddress ? `/${sock.remoteAddress}:${sock.remotePort}` : null,
        isSender: this.isSender,
        isRequester: this.isRequester,
        partnerIsSystem: this.partner.host.adminRole,
      },
      dirs: { home: this.dirs.home, in: this.dirs.in, out: this.dirs.out, work: this.dirs.work, arch: this.dirs.arch },
      currentFile: this.file,
      error: step === 'error' ? error : null,
      rescheduled: false,
      logger: taskLogger(this.logger),
      engine: { ...this.core.hooksFor(this.record), keepAlive: () => undefined },
      options: { defaultTimeoutMs: this.core.limits.timeoutCon },
    };
  }

  /** Runs this side's list for `step`, persisting the record the tasks changed. */
  async runTasks(step: TaskListStep, error: { code: ErrorCodeInfo; message: string } | null = null, startIndex = 0): Promise<TaskListOutcome & { rescheduled: boolean }> {
    const list = tasksFor(this.rule, this.isSender ? 'sender' : 'receiver', step);
    // No context for an empty list: most rules have none, and it is built for every step.
    if (list.length === 0) return { status: 'success', warning: false, rescheduled: false };
    const ctx = this.taskContext(step, error);
    // Tasks may run for minutes without a write: the row stays fresh so other processes see it alive.
    const stopFresh = this.keepRowFresh();
    let outcome: TaskListOutcome;
    try {
      outcome = await runTaskList(list, ctx, {
        registry: this.core.tasks,
        startIndex,
        onTaskStart: async (index) => {
          if (step !== 'error') await this.row.set({ step: index });
        },
      });
    } finally {
      await stopFresh();
    }
    this.file = ctx.currentFile;
    await this.row.saveAll();
    return { ...outcome, rescheduled: ctx.rescheduled };
  }

  /**
   * Keeps this transfer's row alive for other processes (alive.ts) until the returned stop: around
   * the tasks, and the waits for a partner running its own (answer-wait.ts).
   */
  keepRowFresh(): () => Promise<void> {
    return this.row.keepFresh(heartbeatMs(aliveWindowMs(this.core.limits.timeoutCon, this.core.aliveWindowMs)));
  }

  /** True when this side has tasks for `step` in its rule. */
  hasTasks(step: TaskListStep): boolean {
    return tasksFor(this.rule, this.isSender ? 'sender' : 'receiver', step).length > 0;
  }

  /**
   * Pre-tasks (only when the restart point is at or before them, tasks.md §3 step 3). Without
   * tasks nothing happens between the two transitions: they are staged for the caller's next
   * write (RunnerRow.stage()), which comes before the next packet.
   */
  async preTasks(): Promise<void> {
    if (this.record.globalLastStep > TaskStep.PRETASK) return;
    const write = this.hasTasks('pre');
    await this.row.preTasksStart(0, write);
    const out = await this.runTasks('pre');
    if (out.status === 'failure') throw new R66Error(out.code ?? ErrorCode.ExternalOp, `PreTask in error: ${out.message ?? 'task failed'}`);
    await this.row.preTasksDone(write);
  }

  /** Post-tasks; without tasks the transitions are staged like the pre-tasks' (see preTasks()). */
  async postTasks(): Promise<void> {
    const write = this.hasTasks('post');
    await this.row.postTasksStart(0, write);
    const out = await this.runTasks('post');
    if (out.status === 'failure') throw new R66Error(out.code ?? ErrorCode.ExternalOp, `PostTask in error: ${out.message ?? 'task failed'}`);
    await this.row.postTasksDone(write);
  }

  // ---------------------------------------------------------------- end and errors

  async complete(): Promise<TransferOutcome> {
    await this.row.allDone();
    return this.outcome(ErrorCode.CompleteOk, '');
  }

  outcome(code: ErrorCodeInfo, message: string): TransferOutcome {
    return { record: { ...this.record }, code, message, file: this.file };
  }

  /** Closes the work file's handle when the data loop did not take it (its creation may have failed). */
  async closeWorkHandle(): Promise<void> {
    const pending = this.workHandle;
    this.workHandle = null;
    await pending?.then((storage) => storage.close()).catch(() => undefined);
  }

  /**
   * The error path (§9.7): tell the partner unless the error came from it, apply what stop and
   * cancel mean to the rank and the work file, run the error tasks once, persist the error.
   */
  async fail(err: unknown): Promise<TransferOutcome> {
    await this.closeWorkHandle();
    if (this.row.writeFailure !== null || err instanceof RowWriteError || isDatabaseUnavailable(err)) return this.failWithoutDatabase(err);
    // Out of file descriptors: said at ERROR once a minute for the process, not only in this INFO line.
    reportFdExhaustion(this.logger, err, 'a transfer');
    const r66 = toR66Error(err, this.dirs);
    const code = r66.code;
    const remote = r66.fromPartner;
    let failure = r66;
    if (!remote && code === ErrorCode.Shutdown) {
      // A local shutdown tells the partner with the notice, the receiver giving its rank (§9.12).
      await this.channel.send(encodeValidCommand({ cmd: 'shutdownNotice', rank: this.isSender ? null : this.record.rank })).catch(() => undefined);
    } else if (!remote) {
      await this.channel.send(errorPacketOf(r66, this.record.rank)).catch(() => undefined);
    } else if (code === ErrorCode.StoppedTransfer || code === ErrorCode.CanceledTransfer) {
      // The original echoes a stop/cancel back to its sender.
      await this.channel.send(errorPacket(r66.message, code)).catch(() => undefined);
    }
    if (code === ErrorCode.StoppedTransfer && remote) {
      const rank = parseStoppedRank(r66.message);
      if (rank !== null && rank >= 0 && rank < this.record.rank) this.record.rank = rank;
    }
    if (code === ErrorCode.CanceledTransfer) {
      this.record.rank = 0;
      if (!this.isSender && !this.record.isMoved) await removeQuietly(this.core.files, this.file);
    }
    if (code === ErrorCode.QueryAlreadyFinished && this.isSender) {
      // The partner already has it all: done here too (§9.7). Not for a transfer this host never
      // started before: its id is one the partner knows from another transfer (two databases
      // handing out the same ids), and nothing was sent.
      if (!this.neverStartedBefore) return this.complete().catch((e: unknown) => this.failWithoutDatabase(e));
      failure = new R66Error(code, idCollisionMessage(this.record.specialId, this.partner.hostId));
      this.logger.error({ id: String(this.record.specialId), partner: this.partner.hostId }, failure.message);
    }
    this.logger.info({ id: String(this.record.specialId), code: code.char, err: failure.message }, 'transfer in error');
    let rescheduled = false;
    if (!this.errorTasksDone && this.record.globalStep !== TaskStep.ERRORTASK) {
      this.errorTasksDone = true;
      try {
        // With the rank as it now is (a cancel reset it): the row never shows the error code
        // beside a rank the transfer no longer has.
        await this.row.move({ kind: 'errorTasksStart', code }, { rank: this.record.rank });
        const out = await this.runTasks('error', { code, message: failure.message });
        rescheduled = out.rescheduled || out.status === 'rescheduled';
      } catch (taskErr) {
        this.logger.warn({ err: (taskErr as Error).message }, 'error tasks failed');
      }
    }
    try {
      await this.row.inError(code, rescheduled, this.isRequester && isRetryableEnd(code));
    } catch (dbErr) {
      // The scheduler writes the end of an attempt it ran once the database answers (unrecorded).
      this.logger.error({ err: (dbErr as Error).message }, 'cannot record the transfer error');
      return { ...this.outcome(code, failure.message), unrecorded: true };
    }
    return this.outcome(code, failure.message);
  }

  /**
   * The end of a transfer whose row cannot be written (this host's database stopped, its connection
   * broke, its file became unwritable): the partner is told with `l` (this host cannot serve now:
   * a requester tries again later, r66-protocol.md §9.2), no error task runs (the transfer is not
   * over: it is tried again once the database answers, from the rank its row holds), and nothing
   * more is written. The outcome says its end is unrecorded: the scheduler settles the row later.
   */
  private async failWithoutDatabase(err: unknown): Promise<TransferOutcome> {
    const cause = err instanceof RowWriteError ? err.cause : (this.row.writeFailure?.cause ?? err);
    const message = `database unavailable: ${cause instanceof Error ? cause.message : String(cause)}`;
    if (!(err instanceof R66Error && err.fromPartner)) {
      const hostId = this.isRequester ? this.record.requester : this.record.requested;
      await this.channel.send(errorPacket(`${hostId} cannot use its database now: try again later`, ErrorCode.ServerOverloaded)).catch(() => undefined);
    }
    this.logger.warn({ id: String(this.record.specialId), err: message }, 'transfer failed: its row cannot be written; it is tried again once the database answers');
    return { ...this.outcome(ErrorCode.Internal, message), unrecorded: true };
  }

  /** The local file name as this host shows it on the wire (virtual under the home when possible). */
  wireName(): string {
    return this.file === null ? this.record.filename : virtualOrAbsolute(this.dirs.home, this.file);
  }
}

/**
 * Why a new transfer's id was refused as "already finished": the ids of two databases overlap (a
 * client database and the server's, both started from the time of their initdb, database.md §7).
 */
function idCollisionMessage(id: bigint, partner: string): string {
  return `${partner} already finished a transfer with id ${id} from this host, but this transfer never sent its data: `
    + 'the transfer ids of two databases of this host collide (each sequence starts at the time of its initdb). '
    + 'Nothing was sent. Give one database its own range with initdb -minimalSeq, then send again.';
}

function virtualOrAbsolute(home: string, abs: string): string {
  const rel = path.relative(home, abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : '/' + rel.split(path.sep).join('/');
}

/**
 * What a packet the conversation did not expect means: the partner's Error, its shutdown notice
 * (Valid 8, r66-protocol.md §9.12: the transfer ends with `S`, a lower rank in the middle becomes
 * the restart rank), or a protocol error `R`.
 */
export function unexpectedPacket(s: TransferSession, p: Packet, expected: string): R66Error {
  if (isShutdownNotice(p)) {
    const rank = shutdownRank(p);
    if (rank !== null && rank >= 0 && rank < s.record.rank) s.record.rank = rank;
    return new R66Error(ErrorCode.Shutdown, `Shutdown forced by ${s.partner.hostId}`, { fromPartner: true });
  }
  return unexpected(p, expected);
}

/** Valid 8 "Shutdown forced", or its JSON form (ShutdownRequestJsonPacket, sub-type 8). */
function isShutdownNotice(p: Packet): boolean {
  return (p.kind === 'valid' || p.kind === 'jsonCommand') && p.subType === PacketType.SHUTDOWN;
}

/** The rank a shutdown notice carries, or null. */
function shutdownRank(p: Packet): number | null {
  if (p.kind === 'valid') {
    const t = p.middle.trim();
    return /^\d{1,10}$/.test(t) ? Number(t) : null;
  }
  if (p.kind === 'jsonCommand' && p.command?.jsonClass === 'ShutdownRequestJsonPacket') return p.command.rank >= 0 ? p.command.rank : null;
  return null;
}

/**
 * Ends of a requester's attempt that a later attempt may overcome (partner busy or gone, connection
 * lost, the partner still running the attempt before): its caller retries them (engine retries,
 * scheduler). Shutdown is apart: its row is INTERRUPTED, resumed at the next start.
 */
export function isRetryableEnd(code: ErrorCodeInfo): boolean {
  return code === ErrorCode.ServerOverloaded || code === ErrorCode.Disconnection || code === ErrorCode.ConnectionImpossible || code === ErrorCode.QueryStillRunning;
}

/**
 * Any failure as an R66Error (unknown errors are Internal, message kept without stack). A file named
 * by a file-system error is named relative to the rule's directory (`dirs`, fileErrorText()).
 */
export function toR66Error(err: unknown, dirs?: RuleDirectories): R66Error {
  if (err instanceof R66Error) return err;
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e === 'object' && typeof e.code === 'string') {
    // fileErrorText: the file relative to the rule's directory, not the server's path (the partner reads these texts).
    const text = fileErrorText(e, dirs ? [dirs.in, dirs.out, dirs.work, dirs.arch] : []);
    if (e.code === 'ENOENT') return new R66Error(ErrorCode.FileNotFound, `File not found: ${text}`);
    if (e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS') return new R66Error(ErrorCode.FileNotAllowed, `File not allowed: ${text}`);
    if (e.code === 'ENOSPC') return new R66Error(ErrorCode.Internal, `No space left: ${text}`);
    // Any other file-system error (EISDIR, EMFILE...): Node's message holds the absolute path.
    if (typeof e.path === 'string') return new R66Error(ErrorCode.Internal, `File error: ${text}`);
  }
  return new R66Error(ErrorCode.Internal, err instanceof Error ? err.message : String(err));
}

function taskLogger(log: EngineCore['logger']): TaskContext['logger'] {
  return {
    trace: (m) => log.trace(m),
    debug: (m) => log.debug(m),
    info: (m) => log.info(m),
    warn: (m) => log.warn(m),
    error: (m) => log.error(m),
  };
}
