/**
 * The transfer engine of a host: creates transfers (now or for the scheduler), runs them as
 * requester, serves the partners' Requests, and stops/cancels/restarts transfers when the order
 * service (src/operations) asks it: it is the service's live engine for every entry point (CLI,
 * REST, web, FileWatcher, the partners' Valid/JsonCommand orders, r66-protocol.md §9.9).
 */
import { EventEmitter } from 'node:events';
import { effectiveRole } from '../config/index.js';
import { ErrorCode } from '../model/error-code.js';
import type { TransferKey, TransferRecord } from '../model/transfer.js';
import { R66Error } from '../model/r66-error.js';
import type { RequestHandler, RequestHandlers } from '../net/handlers.js';
import type { EngineHooks, TransferSubmission } from '../tasks/index.js';
import { forwardRestart } from './control.js';
import { isFinished } from './state.js';
import { directWritesFrom } from './file/direct-writer.js';
import { hashThreadFrom } from './hash/global-hash.js';
import { localFileSystem } from './file/local-file-system.js';
import { runningKey, type EngineCore, type RunningTransfer } from './core.js';
import { handleRequest } from './requested.js';
import { runRequester, type FirstAttempt } from './requester.js';
import { UnrecordedEnds } from './unrecorded-ends.js';
import { BandwidthShaper } from './shaper.js';
import { aliveWindowMs } from './alive.js';
import type { ThroughStream } from './through.js';
import type {
  AttemptSignals, BandwidthLimits, ControlResult, EngineOrders, TransferEngineEvents, TransferEngineOptions, TransferOutcome, TransferProgress, TransferRef, TransferRequest,
} from './types.js';

// With 64 KiB blocks: at most every 64 MiB (and every second), so the receiver's checkpoint fsync stays rare.
const DEFAULT_RANK_SAVE_BLOCKS = 1024;

/** Events: `start` (record), `progress` (TransferProgress, per rank save), `end` (TransferOutcome). */
export class TransferEngine<O extends EngineOrders = EngineOrders> extends EventEmitter<{ [K in keyof TransferEngineEvents]: Parameters<TransferEngineEvents[K]> }> {
  /** Run-time bandwidth limits (bandwidth.md §4): `engine.bandwidth.set({ writeGlobal: ... })`. */
  readonly bandwidth: BandwidthShaper;
  readonly ownerId: string;
  /**
   * The process's transfer-order service (src/operations' TransferOrders, handed in at composition
   * by engineWithOrders) with this engine live: submit, send now, stop, cancel, cancel-and-clean,
   * restart, resubmit. The client commands and the FileWatcher use it (`engine.orders`).
   */
  readonly orders: O;
  private readonly core: EngineCore;
  private closed = false;
  /** Ends of partners' transfers the database could not record (unrecorded-ends.ts). */
  readonly unrecordedEnds: UnrecordedEnds;
  private blocked = false;

  constructor(private readonly opts: TransferEngineOptions<O>) {
    super();
    const l = opts.limits;
    this.bandwidth = new BandwidthShaper({ writeGlobal: l.globalLimit, readGlobal: l.globalLimit, writeSession: l.sessionLimit, readSession: l.sessionLimit }, l.delayLimit > 0 ? l.delayLimit : 1000);
    this.ownerId = opts.ownerId ?? opts.identity.hostId;
    const rules = opts.rules ?? opts.store.rules;
    this.unrecordedEnds = new UnrecordedEnds(opts.store.runner, (key) => this.core.running.has(key), opts.logger);
    this.core = {
      identity: opts.identity,
      directories: opts.directories,
      extraServed: opts.extraServed ?? [],
      limits: opts.limits,
      runner: opts.store.runner,
      findRule: (id) => rules.get(id),
      pool: opts.pool,
      tasks: opts.tasks,
      shaper: this.bandwidth,
      logger: opts.logger,
      notify: opts.notify,
      ownerId: this.ownerId,
      nextTransferId: () => opts.store.nextTransferId(),
      rankSaveBlocks: opts.rankSaveBlocks ?? DEFAULT_RANK_SAVE_BLOCKS,
      aliveWindowMs: aliveWindowMs(opts.limits.timeoutCon, opts.aliveWindowMs),
      directWrites: opts.directWrites ?? directWritesFrom(process.env),
      hashThread: opts.hashThread ?? hashThreadFrom(process.env),
      files: opts.files ?? localFileSystem,
      hooksFor: (record) => this.hooksFor(record),
      running: new Map<string, RunningTransfer>(),
      refusesRequests: () => this.closed || this.blocked || (opts.limits.connLimit > 0 && this.core.running.size >= opts.limits.connLimit),
      emitProgress: (p: TransferProgress) => this.emit('progress', p),
      emitStart: (r: TransferRecord) => this.emit('start', r),
      emitEnd: (o: TransferOutcome) => {
        // A partner's transfer whose error the database could not record: written once it can.
        if (o.unrecorded === true && !this.isOwnId(o.record.requester)) this.unrecordedEnds.keep(keyOf(o.record), o.code);
        this.emit('end', o);
      },
    };
    // The process's one order service, made by the composition (it is above this layer): it
    // creates the rows of the transfers this engine runs (prepare, submitLater, reschedule).
    this.orders = opts.orders;
    if (opts.handlers) this.registerHandlers(opts.handlers);
  }

  /**
   * Registers the conversation this engine serves in the handler table (net/handlers.ts): the
   * partners' Requests, for a client's or a test host's engine; a server's table is composed in
   * src/server/components.ts from handlerRows(). The partners' stop, cancel and restart orders are
   * not the engine's: they go to the order service (src/operations/partner-orders.ts).
   */
  registerHandlers(handlers: RequestHandlers): void {
    handlers.register('request', this.handlerRows().request, 'transfer engine');
  }

  /** The engine's row of the handler table: Request. */
  handlerRows(): { request: RequestHandler<'request'> } {
    return { request: (ctx, p) => handleRequest(this.core, ctx, p) };
  }

  /**
   * Blocks (true) or unblocks new transfer requests from partners (the BlockRequest order,
   * r66-protocol.md §9.12): while blocked they are answered `l` and the requesters retry later.
   */
  blockRequests(block: boolean): void {
    this.blocked = block;
  }

  get requestsBlocked(): boolean {
    return this.blocked;
  }

  /** True for this host's own ids (plain and TLS): such a caller may give any order. */
  isOwnId(hostId: string): boolean {
    return hostId === this.opts.identity.hostId || hostId === this.opts.identity.sslHostId;
  }

  /** The effective role of a partner giving an order (config.md §3.10). */
  roleOf(hostId: string, isAdmin: boolean): number {
    return effectiveRole(this.opts.roles ?? [], hostId, isAdmin);
  }

  /** Transfers running on this host now (either role). */
  get runningCount(): number {
    return this.core.running.size;
  }

  /** True when this transfer runs on this host now. */
  isRunning(ref: TransferRef): boolean {
    return this.core.running.has(runningKey(ref));
  }

  /**
   * Creates a transfer and runs it now, whatever its direction (the rule's mode decides who sends).
   * Resolves with the final RUNNER row and its code when it ends (success or error, after the
   * configured connection retries). Throws an R66Error only when no transfer could be created
   * (unknown rule, unknown partner, a local file outside the allowed directories...); a
   * missing local file to send is a transfer that fails with FileNotFound (f), its row in error.
   */
  async transfer(req: TransferRequest): Promise<TransferOutcome> {
    return this.run(await this.prepare(req));
  }

  /**
   * The creation half of transfer(): checks, ids and the local file, without writing anything yet.
   * A caller running transfers one after another (msend) prepares the next one while the current
   * one waits for its partner. Throws like transfer() when no transfer can be created.
   */
  async prepare(req: TransferRequest): Promise<PreparedTransfer> {
    // The new row is inserted by the first attempt's first write (just before its Request, or its
    // failure's), with the attempt's columns: one INSERT instead of an INSERT and an UPDATE.
    return this.orders.prepareNow(req);
  }

  /**
   * The running half of transfer(): the attempts of a prepared transfer, to its end. `signals`:
   * told when an attempt waits for the partner, and once the outcome is decided (AttemptSignals).
   */
  async run(prepared: PreparedTransfer, signals?: AttemptSignals): Promise<TransferOutcome> {
    const { record, through, first } = prepared;
    if (through !== null) {
      const outcome = await this.runWithRetries(record, 0, through, first, signals);
      // A sink that did not get the whole file is destroyed, never ended as if complete.
      if ('sink' in through && outcome.code !== ErrorCode.CompleteOk && !through.sink.writableEnded) through.sink.destroy(new Error(outcome.message || outcome.code.meaning));
      return outcome;
    }
    return this.runWithRetries(record, this.opts.connectRetries ?? 0, null, first, signals);
  }

  /** Like transfer(), refusing a rule of the receive direction (client `send`). */
  async submitSend(req: TransferRequest): Promise<TransferOutcome> {
    return this.run(await this.orders.prepareNow(req, { send: true }));
  }

  /** Like transfer(), refusing a rule of the send direction (a pull: the partner sends). */
  async submitRecv(req: TransferRequest): Promise<TransferOutcome> {
    return this.run(await this.orders.prepareNow(req, { send: false }));
  }

  /**
   * Writes a transfer for the scheduler (client `asend`, `-start`/`-delay`, TRANSFER task,
   * database.md §9.1): a RUNNER row with UPDATEDINFO = TOSUBMIT and STARTTRANS = `req.start` (now
   * when absent). Returns its id.
   */
  async submitLater(req: TransferRequest): Promise<bigint> {
    return this.orders.submitLater(req);
  }

  /** Runs an existing row of this host as requester (the scheduler's entry point). */
  async runRecord(record: TransferRecord, retries = 0): Promise<TransferOutcome> {
    return this.runWithRetries(record, retries);
  }

  /** One attempt; `retryable` says whether a later one may succeed. */
  runOnce(record: TransferRecord): Promise<TransferOutcome & { retryable: boolean }> {
    return runRequester(this.core, record);
  }

  private async runWithRetries(record: TransferRecord, retries: number, through: ThroughStream | null = null, first?: FirstAttempt, signals?: AttemptSignals): Promise<TransferOutcome> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await runRequester(this.core, record, through, attempt === 0 ? first : undefined, signals);
      if (!outcome.retryable || attempt >= retries || this.closed) {
        const { retryable: _r, ...rest } = outcome;
        // Nothing can be written when the database could not record the attempt's end.
        if (!outcome.retryable || outcome.unrecorded === true) return rest;
        // The outcome's record is the row as the attempt wrote it: only this last change is added.
        const written = await this.core.runner.move(rest.record, { kind: 'givenUp' });
        return { ...rest, record: { ...rest.record, ...written } };
      }
      this.opts.logger.info({ id: String(record.specialId), code: outcome.code.char }, `transfer retried in ${this.opts.limits.delayRetry} ms`);
      await new Promise((resolve) => setTimeout(resolve, this.opts.limits.delayRetry));
      record = (await this.core.runner.get(keyOf(record))) ?? record;
    }
  }

  /** Stops a transfer (r66-protocol.md §9.9): a running one ends with `H` on both sides, its rank kept. */
  stop(ref: TransferRef): Promise<ControlResult> {
    return this.stopOrCancel(ref, ErrorCode.StoppedTransfer);
  }

  /** Cancels a transfer: ends with `K`, rank reset to 0, the partial work file removed. */
  cancel(ref: TransferRef): Promise<ControlResult> {
    return this.stopOrCancel(ref, ErrorCode.CanceledTransfer);
  }

  private async stopOrCancel(ref: TransferRef, code: typeof ErrorCode.StoppedTransfer): Promise<ControlResult> {
    const running = this.core.running.get(runningKey(ref));
    if (running) {
      const ended = this.ended(ref, this.opts.limits.timeoutCon);
      running.abort(new R66Error(code, `${code.name} ${running.record.rank}`));
      // Answered once the session ended and its row says so: a caller may restart it at once.
      await ended;
      return { code: ErrorCode.CompleteOk, message: `transfer ${ref.specialId} ${code === ErrorCode.StoppedTransfer ? 'stopped' : 'cancelled'}` };
    }
    const result = await this.opts.storedOrders.stopOrCancel({ ...ref, ownerReq: this.ownerId }, code === ErrorCode.StoppedTransfer ? 'stop' : 'cancel');
    return { code: result.code, message: result.code === ErrorCode.CompleteOk ? `transfer ${ref.specialId} marked ${code.name}` : result.message };
  }

  /** Resolves when the running transfer `ref` ended on this host (its `end` event), or after `ms`. */
  private ended(ref: TransferRef, ms: number): Promise<void> {
    const key = runningKey(ref);
    if (!this.core.running.has(key)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.off('end', onEnd);
        resolve();
      };
      const onEnd = (o: TransferOutcome): void => {
        if (runningKey(o.record) === key) done();
      };
      const timer = setTimeout(done, ms);
      this.on('end', onEnd);
    });
  }

  /**
   * Restarts a transfer that ended in error or was stopped: the row goes back to TOSUBMIT at `at`
   * (default now) from its restart point, for the scheduler (database.md §6.1 "Restart").
   */
  async restart(ref: TransferRef, at?: Date): Promise<ControlResult> {
    if (this.core.running.has(runningKey(ref))) return { code: ErrorCode.QueryStillRunning, message: `transfer ${ref.specialId} is running` };
    const key = { ...ref, ownerReq: this.ownerId };
    const record = await this.core.runner.get(key);
    if (record !== undefined && !isFinished(record) && !this.isOwnId(record.requester)) {
      // Only the requester can start it again: ask it (§9.9).
      try {
        return await forwardRestart(this.opts.pool, ref, at);
      } catch (err) {
        return { code: ErrorCode.ConnectionImpossible, message: `cannot ask ${record.requester} to restart: ${(err as Error).message}` };
      }
    }
    // Not running here (checked above): a row left RUNNING by a crash may be restarted.
    const { code, message } = await this.opts.storedOrders.restart(key, at ?? new Date());
    return { code, message };
  }

  /**
   * Ends one running transfer with Shutdown as close() ends them all (rank kept, resumable), the
   * engine staying open: a fenced cluster member's scheduler (src/cluster/member.ts). False when
   * it does not run here (yet).
   */
  interrupt(ref: TransferRef): boolean {
    const running = this.core.running.get(runningKey(ref));
    running?.abort(new R66Error(ErrorCode.Shutdown, 'Shutdown forced'));
    return running !== undefined;
  }

  /** Ends every running transfer with Shutdown (their rows stay restartable) and refuses new requests. */
  async close(): Promise<void> {
    this.closed = true;
    this.unrecordedEnds.close();
    const err = new R66Error(ErrorCode.Shutdown, 'Shutdown forced');
    for (const r of this.core.running.values()) r.abort(err);
    const deadline = Date.now() + this.opts.limits.timeoutCon;
    while (this.core.running.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** The hooks tasks of one transfer get (TRANSFER submits, RESCHEDULE resubmits this one). */
  private hooksFor(record: TransferRecord): EngineHooks {
    return {
      ...this.opts.hooks,
      transfers: {
        submit: (s: TransferSubmission) =>
          this.orders.submitLater({ partner: s.to, rule: s.rule ?? record.idRule, file: s.file ?? record.filename, md5: s.md5, blockSize: s.blockSize, fileInfo: s.info, noFollow: true, id: s.id, start: s.start }),
      },
      rescheduler: {
        reschedule: async (at: Date) => {
          record.start = at;
          await this.orders.reschedule(record, at);
        },
      },
      // The information a task changed, not the whole row: the rest is the session's to write.
      records: { save: async () => void (await this.core.runner.updateInfo(keyOf(record), { fileInfo: record.fileInfo, transferInfo: record.transferInfo })) },
    };
  }
}

/** A transfer created by TransferEngine.prepare(), not started (and not in RUNNER) yet. */
export interface PreparedTransfer {
  readonly record: TransferRecord;
  readonly through: ThroughStream | null;
  readonly first: FirstAttempt;
}

function keyOf(r: TransferRecord): TransferKey {
  return { specialId: r.specialId, requester: r.requester, requested: r.requested, ownerReq: r.ownerReq };
}

export type { BandwidthLimits };
