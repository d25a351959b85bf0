/**
 * The one service for transfer orders (issue 20 item 2): submit (new row for the scheduler), send
 * now, stop, cancel, cancel-and-clean, restart, resubmit. The CLI, REST v1 and v2, the TRANSFER
 * and RESCHEDULE tasks, the web UI and the FileWatcher call it; nothing else writes RUNNER rows
 * for an order. It works with a live transfer engine (a server: running transfers are
 * interrupted, "send now" runs) or without one (a client writing into the server's database: the
 * stored row is changed the way the engine changes a row that is not running).
 *
 * Refusals are R66Errors (src/model/r66-error.ts): their code gives the wire code, the HTTP status
 * and the exit code. Stop, cancel, restart and the table editor's edits of a RUNNING row that
 * another live process runs (a CLI client on this database, another cluster member) are refused
 * with QueryStillRunning, reason `runningElsewhere` (running-elsewhere.ts, issue 35 item 2).
 */
import type { DirectoryConfig } from '../config/index.js';
import { ErrorCode } from '../model/error-code.js';
import type { Host } from '../model/host.js';
import { isSendMode, ruleAllowsHost, TransferMode, type Rule } from '../model/rule.js';
import { R66Error } from '../model/r66-error.js';
import { TaskStep, UpdatedInfo, type TransferKey, type TransferRecord } from '../model/transfer.js';
import type { RunnerRepository } from '../store/index.js';
import { isFinished, transition, type StateEdit } from '../transfer/state.js';
import type { PreparedTransfer } from '../transfer/engine.js';
import type { AttemptSignals, ControlResult, TransferOutcome, TransferRef, TransferRequest } from '../transfer/types.js';
import { updateInfoMap } from '../tasks/transfer-info.js';
import { requesterRecord, throughOf, type RequesterRecordDeps } from './requester-record.js';
import { checkRowFile, resolveOrderFile } from './order-files.js';
import { newTransferRecord } from '../transfer/new-record.js';
import { localFileSystem } from '../transfer/file/local-file-system.js';
import type { TransferFileSystem } from '../transfer/file/storage.js';
import { removeQuietly } from '../transfer/placement.js';
import { keyOf, refusalOf, restartStored, stopOrCancelStored, workFileOf, type OrderResult } from './stored-orders.js';
import { elsewhereRefusal, runningElsewhere } from './running-elsewhere.js';
import { aliveWindowMs } from '../transfer/alive.js';

/** What a cleaned row's file name starts with (web-ui.md §2 CancelClean), as the original writes it. */
export const FILE_DELETED_MARK = '###FILE DELETED### ';

/**
 * The columns a v1 table editor's request gives (rest-v1.md §11.1): the data columns, and the
 * state columns as an `edit` move of the state machine (UPDATEDINFO is never given: TOSUBMIT).
 */
export interface RowEdit {
  fields: Partial<Pick<TransferRecord, 'idRule' | 'mode' | 'retrieveMode' | 'filename' | 'originalName' | 'fileInfo' | 'isMoved' | 'blockSize' | 'transferInfo' | 'rank' | 'start' | 'stop'>>;
  state: StateEdit;
}

/** What the service reads and writes: the RUNNER rows, rules and partners of this host. */
export interface OrderStore {
  runner: RunnerRepository;
  rules: { get(idRule: string): Promise<Rule | undefined> };
  hosts: { get(hostId: string): Promise<Host | undefined> };
  nextTransferId(): Promise<bigint>;
  /** Several rows in one transaction (submitMany); without it rows are written one by one. */
  transaction?<T>(body: (tx: { runner: Pick<RunnerRepository, 'insertMany' | 'insert' | 'delete'>; nextTransferIds(n: number): Promise<bigint[]> }) => Promise<T>): Promise<T>;
}

/**
 * The transfer engine of this process, when it runs one (TransferEngine satisfies it): it
 * interrupts a running transfer, restarts (forwarding to the requester when needed) and runs a
 * transfer now.
 */
export interface LiveTransfers {
  isRunning(ref: TransferRef): boolean;
  stop(ref: TransferRef): Promise<ControlResult>;
  cancel(ref: TransferRef): Promise<ControlResult>;
  restart(ref: TransferRef, at?: Date): Promise<ControlResult>;
  /**
   * Runs a transfer prepared by TransferOrders.prepareNow() to its end (TransferEngine.run());
   * absent: "send now" is refused (REST's engine control has no runner).
   */
  run?(prepared: PreparedTransfer, signals?: AttemptSignals): Promise<TransferOutcome>;
  /**
   * True while new transfers are blocked by order (BlockRequest, REST, web page; r66-protocol.md
   * §9.12): submit and send now are refused with ServerOverloaded (`l`), as the partners' requests.
   */
  readonly requestsBlocked?: boolean;
}

export interface TransferOrdersOptions {
  store: OrderStore;
  /** This host's ids: plain (also OWNERREQ) and TLS. */
  hostId: string;
  sslHostId?: string | undefined;
  directories: DirectoryConfig;
  /**
   * Directories besides the host's where a file to send may lie (file policy), as the engine's
   * option of that name: the FileWatcher's watched directories.
   */
  extraServed?: readonly string[];
  /** The host's default block size. */
  blockSize: number;
  /** Where the transfers' files live, as the engine's option of that name; default the host's file system. */
  files?: TransferFileSystem;
  /** Partner lookup (aliases, authent.xml without database); default `store.hosts.get`. */
  partner?: (hostId: string) => Promise<Host | undefined>;
  /** The engine, in a process that runs transfers. */
  live?: LiveTransfers | (() => LiveTransfers | undefined);
  now?: () => Date;
  /**
   * How long after its last write a RUNNING row this process does not run counts as run by a live
   * process elsewhere (transfer/alive.ts aliveWindowMs(timeoutcon)): stop, cancel, restart and the
   * table editor's edits of such a row are refused (running-elsewhere.ts). Default 60 s.
   */
  aliveWindowMs?: number;
}

/**
 * A new transfer (submit, send now): the engine's TransferRequest fields without stream and id.
 * `file`, to send: relative to the rule's send directory or absolute inside the host's served
 * directories (file policy, src/fs/file-policy.ts); to receive: the name asked of the partner.
 */
export interface TransferOrder extends Pick<TransferRequest, 'partner' | 'rule' | 'file' | 'md5' | 'blockSize' | 'fileInfo' | 'noFollow' | 'start'> {
  /**
   * The id of the new row, chosen beforehand (the FileWatcher takes its ids first so a restart
   * finds its rows again); default the next one. A row with that id existing: submit() fails,
   * sendNow() restarts it (the engine's restart of a known id). submitMany() gives its rows the ids
   * of its batch.
   */
  id?: bigint;
  /** Extra TRANSFERINFO (REST v2 `transferInfo`). */
  transferInfo?: string;
  /** The file's size when the caller already read it (masend's expansion). */
  size?: number;
}

export class TransferOrders {
  constructor(private readonly opts: TransferOrdersOptions) {}

  private get files(): TransferFileSystem {
    return this.opts.files ?? localFileSystem;
  }

  private get live(): LiveTransfers | undefined {
    const l = this.opts.live;
    return typeof l === 'function' ? l() : l;
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** The row key of transfer `specialId` with `partner` on this host (the requester is our id towards it). */
  async keyFor(partner: string, specialId: bigint): Promise<TransferKey> {
    const host = await this.partnerHost(partner);
    return { specialId, requester: this.ownIdFor(host), requested: host.hostId, ownerReq: this.opts.hostId };
  }

  /** This host's id towards `host`: the TLS id for a TLS partner. */
  ownIdFor(host: Host): string {
    return host.isSsl && this.opts.sslHostId !== undefined ? this.opts.sslHostId : this.opts.hostId;
  }

  private async partnerHost(partner: string): Promise<Host> {
    const host = await this.partnerOf(partner);
    if (host === undefined) throw new R66Error(ErrorCode.NotKnownHost, `partner ${partner} is not known`, { details: { reason: 'unknownPartner', partner } });
    return host;
  }

  private async ruleFor(ruleId: string, host: Host, requester: string): Promise<Rule> {
    const rule = await this.opts.store.rules.get(ruleId);
    if (rule === undefined) throw new R66Error(ErrorCode.IncorrectCommand, `rule ${ruleId} is not known on this host`, { details: { reason: 'unknownRule', rule: ruleId } });
    // A rule file shared by both hosts lists both: either id allows it (an empty list allows all).
    if (!ruleAllowsHost(rule, host.hostId) && !ruleAllowsHost(rule, requester)) {
      throw new R66Error(ErrorCode.BadAuthent, `rule ${rule.idRule} is not allowed for ${host.hostId}`, { details: { reason: 'ruleNotAllowed', rule: rule.idRule, partner: host.hostId } });
    }
    return rule;
  }

  /**
   * The row of a new transfer for the scheduler (TOSUBMIT at `order.start`), checked (partner,
   * rule, file policy) and not written: submit() writes it, submitMany() writes a batch.
   */
  async prepare(order: TransferOrder): Promise<TransferRecord> {
    const build = await this.builder(order);
    return build(order.id ?? (await this.opts.store.nextTransferId()));
  }

  /** The checks of prepare(), and the row as a function of the id still to be given. */
  private async builder(order: TransferOrder, memo?: Map<string, Promise<unknown>>): Promise<(specialId: bigint) => TransferRecord> {
    // A batch (submitMany) reads its partner and rule once.
    const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
      if (memo === undefined) return read();
      let p = memo.get(key) as Promise<T> | undefined;
      if (p === undefined) memo.set(key, (p = read()));
      return p;
    };
    const host = await once(`h ${order.partner}`, () => this.partnerHost(order.partner));
    const requester = this.ownIdFor(host);
    const rule = await once(`r ${order.rule}`, () => this.ruleFor(order.rule, host, requester));
    const sending = isSendMode(rule.mode);
    const file = sending ? await resolveOrderFile(rule, this.opts.directories, order.file, order.size, this.opts.extraServed) : { size: -1 };
    const now = this.now();
    return (specialId) => newTransferRecord({
      specialId, ownerId: this.opts.hostId, requester, partner: host.hostId, rule, md5: order.md5,
      blockSize: order.blockSize ?? this.opts.blockSize, file: order.file, size: order.size ?? file.size,
      fileInfo: order.fileInfo, noFollow: order.noFollow, transferInfo: order.transferInfo,
      updatedInfo: UpdatedInfo.TOSUBMIT, start: order.start ?? now, now,
    });
  }

  /**
   * The refusal of a new transfer while this host blocks new requests. Rows the tasks of running
   * transfers submit (submitLater, reschedule) are still written: the scheduler holds them.
   */
  private refuseWhileBlocked(): void {
    const refusal = this.blockedRefusal();
    if (refusal !== undefined) throw refusal;
  }

  private blockedRefusal(): R66Error | undefined {
    if (this.live?.requestsBlocked !== true) return undefined;
    return new R66Error(ErrorCode.ServerOverloaded, 'new transfers are blocked on this host (block order): retry once it is unblocked');
  }

  /** Submit: a new TOSUBMIT row the server's scheduler starts at `order.start` (database.md §9.1). */
  async submit(order: TransferOrder): Promise<TransferRecord> {
    this.refuseWhileBlocked();
    const record = await this.prepare(order);
    await this.opts.store.runner.insert(record);
    return record;
  }

  /**
   * Several submissions: the checks per order, then the rows in one transaction when the store has
   * them; when that fails, one by one so only the rows that cannot be written fail. One result per
   * order, in order: the row, or the R66Error of its refusal.
   */
  async submitMany(orders: readonly TransferOrder[]): Promise<Array<TransferRecord | R66Error>> {
    type Build = (specialId: bigint) => TransferRecord;
    const blocked = this.blockedRefusal();
    if (blocked !== undefined) return orders.map(() => blocked);
    const prepared: Array<Build | R66Error> = [];
    const memo = new Map<string, Promise<unknown>>();
    for (const o of orders) {
      try {
        // The ids are given in the transaction below, all in one statement.
        prepared.push(await this.builder(o, memo));
      } catch (err) {
        prepared.push(asOrderError(err));
      }
    }
    const rows = prepared.filter((p): p is Build => !(p instanceof R66Error));
    const store = this.opts.store;
    if (rows.length > 0 && store.transaction !== undefined) {
      try {
        const written = await store.transaction(async (tx) => {
          const ids = await tx.nextTransferIds(rows.length);
          const batch = rows.map((build, i) => build(ids[i] as bigint));
          await tx.runner.insertMany(batch);
          return batch;
        });
        let i = 0;
        return prepared.map((p) => (p instanceof R66Error ? p : (written[i++] as TransferRecord)));
      } catch {
        // One row failed them all: nothing of the batch was written; one by one below.
      }
    }
    const out: Array<TransferRecord | R66Error> = [];
    for (const p of prepared) {
      if (p instanceof R66Error) {
        out.push(p);
        continue;
      }
      try {
        const record = p(await store.nextTransferId());
        await store.runner.insert(record);
        out.push(record);
      } catch (err) {
        out.push(asOrderError(err));
      }
    }
    return out;
  }

  /**
   * Send now (the FileWatcher's direct mode, the web UI): the order's checks (partner, rule allowed
   * for it, file policy), then the engine runs the transfer to its end (success or error); no
   * engine: refused.
   */
  async sendNow(order: TransferOrder): Promise<TransferOutcome> {
    this.runner();
    const host = await this.partnerHost(order.partner);
    const rule = await this.ruleFor(order.rule, host, this.ownIdFor(host));
    if (isSendMode(rule.mode)) await resolveOrderFile(rule, this.opts.directories, order.file, undefined, this.opts.extraServed);
    return this.run(await this.prepareNow({
      partner: order.partner, rule: order.rule, file: order.file, md5: order.md5, blockSize: order.blockSize, fileInfo: order.fileInfo, noFollow: order.noFollow,
      ...(order.id !== undefined ? { id: order.id } : {}),
    }));
  }

  /**
   * The first half of a transfer run now (CLI send/msend, sendNow, the engine's transfer()): its
   * row, checked (partner, rule, `send`: the rule's direction, the file under the policy) and not
   * written yet: the first attempt inserts it with its own columns (one INSERT). An id whose row
   * exists: that row (`send -id`). Throws the engine's R66Error when no transfer can be created;
   * a file to send that is missing gives a row whose attempt fails with FileNotFound.
   */
  async prepareNow(req: TransferRequest, opts: { send?: boolean } = {}): Promise<PreparedTransfer> {
    this.refuseWhileBlocked();
    const { record, file, inserted, rule, partner } = await requesterRecord(this.recordDeps(), req, UpdatedInfo.UNKNOWN, false, opts.send);
    const through = req.stream !== undefined ? throughOf(record, req.stream) : null;
    return { record, through, first: { inserted, file, rule, partner } };
  }

  /**
   * The second half: the engine runs the prepared transfer to its end. `signals`: told when an
   * attempt waits for the partner and once the outcome is decided (msend prepares the next file
   * meanwhile). No engine: refused.
   */
  run(prepared: PreparedTransfer, signals?: AttemptSignals): Promise<TransferOutcome> {
    return this.runner()(prepared, signals);
  }

  private runner(): (prepared: PreparedTransfer, signals?: AttemptSignals) => Promise<TransferOutcome> {
    const live = this.live;
    if (live?.run === undefined) throw new R66Error(ErrorCode.Unimplemented, 'this process runs no transfer engine: submit the transfer instead');
    return live.run.bind(live);
  }

  /**
   * Submit for the scheduler as a task does (TRANSFER task, business TRANSFER, tasks.md §8): the
   * engine's checks (partner, rule, the file to send exists under the policy), a TOSUBMIT row at
   * `req.start` (default now) inserted; an id whose row exists goes back to the scheduler
   * (retryLater). A through stream is refused (it cannot wait in the database). Returns the id.
   */
  async submitLater(req: TransferRequest): Promise<bigint> {
    if (req.stream !== undefined) throw new R66Error(ErrorCode.IncorrectCommand, 'a through transfer (stream) runs now: it cannot be submitted for later');
    const { record } = await requesterRecord(this.recordDeps(), req, UpdatedInfo.TOSUBMIT, true);
    return record.specialId;
  }

  /**
   * RESCHEDULE (tasks.md §8) of the transfer `record` running here: its next attempt at `at`
   * (STARTTRANS) and the RESCHEDULE mark in TRANSFERINFO. The state columns are the error end's
   * (move inError, rescheduled: TOSUBMIT), written by the engine after the error tasks.
   */
  async reschedule(record: TransferRecord, at: Date): Promise<void> {
    await this.opts.store.runner.reschedule(keyOf(record), at, updateInfoMap(record.transferInfo, { RESCHEDULE: true }));
  }

  private deps: RequesterRecordDeps | undefined;

  private recordDeps(): RequesterRecordDeps {
    const o = this.opts;
    return this.deps ??= {
      runner: o.store.runner, rule: (id) => o.store.rules.get(id), partner: (id) => this.partnerOf(id), nextTransferId: () => o.store.nextTransferId(),
      hostId: o.hostId, sslHostId: o.sslHostId, directories: o.directories, extraServed: o.extraServed ?? [], blockSize: o.blockSize, files: this.files,
    };
  }

  private partnerOf(hostId: string): Promise<Host | undefined> {
    return this.opts.partner !== undefined ? this.opts.partner(hostId) : this.opts.store.hosts.get(hostId);
  }

  /** Stop: a running transfer ends with `H` on both sides (rank kept); a stored one is marked. */
  async stop(ref: TransferRef): Promise<OrderResult> {
    return this.interrupt(ref, 'stop');
  }

  /** Cancel: ends with `K`, rank 0, the partial work file removed. */
  async cancel(ref: TransferRef): Promise<OrderResult> {
    return this.interrupt(ref, 'cancel');
  }

  /**
   * Cancel and clean (web-ui.md §2 `CancelClean`): cancel; then, when this host receives the file
   * and the transfer was not finished, its partial work file is deleted and the row's file name
   * becomes `###FILE DELETED### <old name>` (rank 0 comes with the cancel). The row stays, as the
   * original keeps it: history and monitoring still show what was cleaned. A finished transfer is
   * left as it is.
   */
  async cancelAndClean(ref: TransferRef): Promise<OrderResult> {
    const key = this.key(ref);
    const record = await this.opts.store.runner.get(key);
    if (record === undefined) return { code: ErrorCode.TransferOk, message: `transfer ${ref.specialId} is not known: nothing done` };
    if (isFinished(record)) return { code: ErrorCode.TransferOk, message: `transfer ${ref.specialId} is already finished: nothing cleaned`, record };
    const cancelled = await this.interrupt(ref, 'cancel');
    if (record.retrieveMode) return cancelled;
    const after = (await this.opts.store.runner.get(key)) ?? record;
    await removeQuietly(this.files, workFileOf(after) ?? workFileOf(record));
    const filename = `${FILE_DELETED_MARK}${after.filename}`;
    await this.opts.store.runner.updateFilename(keyOf(after), filename);
    return { code: ErrorCode.CompleteOk, message: `transfer ${ref.specialId} cancelled and its partial file deleted`, record: { ...after, filename } };
  }

  /**
   * Restart (the admin order's answer, r66-protocol.md §9.9): back to the restart point for the
   * scheduler at `at` (default now). Running: QueryStillRunning; finished: CompleteOk with `Q`.
   */
  async restart(ref: TransferRef, at?: Date): Promise<OrderResult> {
    const live = this.live;
    const key = this.key(ref);
    await this.refuseIfRunningElsewhere(ref, key);
    if (live !== undefined) {
      const result = await live.restart(ref, at);
      const record = await this.opts.store.runner.get(key);
      return { ...result, ...(record ? { record } : {}) };
    }
    return restartStored(this.opts.store.runner, key, at ?? this.now(), false);
  }

  /**
   * Resubmit (asend -id, v1 create with an id): restart() as a submission: the row reset to its
   * restart point, or an R66Error (unknown, running: QueryStillRunning, finished:
   * QueryAlreadyFinished, nothing written).
   */
  async resubmit(ref: TransferRef, at?: Date): Promise<TransferRecord> {
    const key = this.key(ref);
    const record = await this.opts.store.runner.get(key);
    if (record === undefined) throw new R66Error(ErrorCode.Internal, `transfer ${ref.specialId} with ${ref.requested} is not in the database`, { details: { reason: 'unknownTransfer' } });
    if (isFinished(record)) throw new R66Error(ErrorCode.QueryAlreadyFinished, `transfer ${ref.specialId} is already finished`);
    const result = await this.restart(ref, at);
    const refused = refusalOf(result);
    if (refused !== null) throw refused;
    return result.record ?? record;
  }

  /**
   * Replace (web-ui.md §2.3 CreateTransfer `Update`): a stored transfer this host requested, neither
   * running nor finished, becomes the given order under the same key: the order is checked as a new
   * submission with that id (prepare: partner, rule, file policy), the old row goes and the new one
   * (TOSUBMIT, rank 0) takes its place in one transaction, never neither. A partial file this host
   * was receiving for the old row is removed, since the new row starts from rank 0. Refusals:
   * QueryStillRunning (running here or in another process), QueryAlreadyFinished, or IncorrectCommand when the requested host or the
   * requester (an SSL entry) would change; nothing is written then.
   */
  async replace(stored: TransferRecord, order: Omit<TransferOrder, 'id' | 'partner'>): Promise<TransferRecord> {
    const ref = { specialId: stored.specialId, requester: stored.requester, requested: stored.requested };
    if (stored.requester !== this.opts.hostId && stored.requester !== this.opts.sslHostId) {
      throw new R66Error(ErrorCode.IncorrectCommand, `${stored.requester} requested transfer ${stored.specialId}: only transfers this host requested can be replaced`);
    }
    if (this.live?.isRunning(ref) === true) throw new R66Error(ErrorCode.QueryStillRunning, `transfer ${stored.specialId} is running: stop it first`);
    this.refuseIfElsewhere(ref, stored);
    if (isFinished(stored)) throw new R66Error(ErrorCode.QueryAlreadyFinished, `transfer ${stored.specialId} is finished: create a new one`);
    const record = await this.prepare({ ...order, id: stored.specialId, partner: stored.requested });
    if (record.requester !== stored.requester || record.requested !== stored.requested) {
      throw new R66Error(ErrorCode.IncorrectCommand, `the partner's entry of transfer ${stored.specialId} changed (SSL): cancel it and create a new one`);
    }
    const { store } = this.opts;
    if (store.transaction !== undefined) {
      await store.transaction(async (tx) => {
        await tx.runner.delete(keyOf(stored));
        await tx.runner.insert(record);
      });
    } else {
      await store.runner.delete(keyOf(stored));
      await store.runner.insert(record);
    }
    await removeQuietly(this.files, workFileOf(stored));
    return record;
  }

  /**
   * Delete (REST v2 DELETE, rest-v2.md §10.6): the row is removed. Unknown, or still in its
   * initial state (GLOBALSTEP and GLOBALLASTSTEP NOTASK): `unknownTransfer`; running on this
   * host or in another live process: QueryStillRunning (that process still writes the row).
   * Nothing is removed when refused.
   */
  async remove(ref: TransferRef): Promise<TransferRecord> {
    const key = this.key(ref);
    const record = await this.opts.store.runner.get(key);
    if (record === undefined || (record.globalStep === TaskStep.NOTASK && record.globalLastStep === TaskStep.NOTASK)) {
      throw new R66Error(ErrorCode.Internal, `transfer ${ref.specialId} with ${ref.requested} is not in the database or not started`, { details: { reason: 'unknownTransfer' } });
    }
    if (this.live?.isRunning(ref) === true) throw new R66Error(ErrorCode.QueryStillRunning, `transfer ${ref.specialId} is running: stop it first`);
    this.refuseIfElsewhere(ref, record);
    await this.opts.store.runner.delete(keyOf(record));
    return record;
  }

  /**
   * The v1 table editor's create (rest-v1.md §11.1, role SYSTEM), an upsert: the row of `key`
   * edited as editRow() does, or a new one made by the one row builder (TOSUBMIT, the mode of rule
   * `ruleId` or send when unknown, the owner sending when it requests a send or is requested for a
   * receive) with `edit` applied, then inserted. ORIGINALNAME left empty is FILENAME.
   */
  async putRow(key: TransferKey, ruleId: string, edit: RowEdit): Promise<TransferRecord> {
    const { store } = this.opts;
    const existing = await store.runner.get(key);
    if (existing !== undefined) return this.writeEdit(existing, edit);
    // A new row is written to submit (UPDATEDINFO 3): a new transfer, refused while new transfers
    // are blocked, as v2's POST. An edit of an existing row is written; the scheduler holds it.
    this.refuseWhileBlocked();
    const ruleMode = (await store.rules.get(ruleId))?.mode ?? TransferMode.SENDMODE;
    const now = this.now();
    const record = newTransferRecord({
      specialId: key.specialId, ownerId: key.ownerReq, requester: key.requester, partner: key.requested, rule: { idRule: '', mode: ruleMode },
      blockSize: this.opts.blockSize, file: '', size: null, fileInfo: '', noFollow: true, updatedInfo: UpdatedInfo.TOSUBMIT, start: now, now,
      retrieveMode: (key.ownerReq === key.requester) === isSendMode(edit.fields.mode ?? ruleMode),
    });
    // New: every column is the caller's (IDRULE and RETRIEVEMODE included) before the one insert.
    Object.assign(record, edit.fields, transition(record, { kind: 'edit', set: edit.state }));
    if (record.originalName === '') record.originalName = record.filename;
    await this.checkRowFile(record);
    await store.runner.insert(record);
    return record;
  }

  /**
   * The v1 table editor's update (rest-v1.md §11.1): the given columns of the row of `key`, its
   * state columns through the state machine's `edit` move (illegalTransition()'s error, nothing
   * written, when it refuses). Undefined when no row has the key.
   */
  async editRow(key: TransferKey, edit: RowEdit): Promise<TransferRecord | undefined> {
    const existing = await this.opts.store.runner.get(key);
    return existing === undefined ? undefined : this.writeEdit(existing, edit);
  }

  /**
   * The row of `key` removed as it is, without the checks of remove(): the v1 table editor's
   * delete, and the local record a direct transfer was asked not to keep (`-nolog` of the CLI's
   * send and of the FileWatcher). Undefined when no row has the key.
   */
  async forget(key: TransferKey): Promise<TransferRecord | undefined> {
    const record = await this.opts.store.runner.get(key);
    if (record !== undefined) await this.opts.store.runner.delete(keyOf(record));
    return record;
  }

  private async writeEdit(stored: TransferRecord, edit: RowEdit): Promise<TransferRecord> {
    this.refuseIfElsewhere(stored, stored);
    const { idRule, retrieveMode, ...fields } = edit.fields;
    // IDRULE and RETRIEVEMODE are the row's from its insert (the store writes them only then).
    if ((idRule !== undefined && idRule !== stored.idRule) || (retrieveMode !== undefined && retrieveMode !== stored.retrieveMode)) {
      throw new R66Error(ErrorCode.IncorrectCommand, `transfer ${stored.specialId}: IDRULE and RETRIEVEMODE cannot change once the row exists`, { details: { reason: 'fixedColumn' } });
    }
    if (fields.filename !== undefined || fields.originalName !== undefined) await this.checkRowFile({ ...stored, ...fields });
    // The store asks the state machine: illegalTransition()'s error before anything is written.
    const written = await this.opts.store.runner.move(stored, { kind: 'edit', set: edit.state }, { ...fields, stop: fields.stop ?? stored.stop });
    return { ...stored, ...fields, ...written };
  }

  /** A row this host sends names a file under this service's policy (order-files.ts checkRowFile). */
  private async checkRowFile(row: TransferRecord): Promise<void> {
    const ownIds = [this.opts.hostId, ...(this.opts.sslHostId ? [this.opts.sslHostId] : [])];
    await checkRowFile(row, await this.opts.store.rules.get(row.idRule), this.opts.directories, ownIds, this.opts.extraServed ?? []);
  }

  /**
   * The refusal of an order on a RUNNING row another live process runs (running-elsewhere.ts):
   * that process would not see it, so nothing is written (no mark it overwrites, no second run).
   */
  private refuseIfElsewhere(ref: TransferRef, stored: TransferRecord): void {
    const seconds = runningElsewhere(stored, this.live?.isRunning(ref) ?? false, this.now(), this.opts.aliveWindowMs ?? aliveWindowMs(30_000));
    if (seconds !== undefined) throw elsewhereRefusal(ref.specialId, seconds);
  }

  private async refuseIfRunningElsewhere(ref: TransferRef, key: TransferKey): Promise<void> {
    // A transfer this process runs is no one else's: no read of its row for that.
    if (this.live?.isRunning(ref) === true) return;
    const stored = await this.opts.store.runner.get(key);
    if (stored !== undefined) this.refuseIfElsewhere(ref, stored);
  }

  private key(ref: TransferRef): TransferKey {
    return { specialId: ref.specialId, requester: ref.requester, requested: ref.requested, ownerReq: this.opts.hostId };
  }

  private async interrupt(ref: TransferRef, kind: 'stop' | 'cancel'): Promise<OrderResult> {
    const live = this.live;
    const key = this.key(ref);
    await this.refuseIfRunningElsewhere(ref, key);
    if (live !== undefined) {
      const result = await (kind === 'stop' ? live.stop(ref) : live.cancel(ref));
      const record = await this.opts.store.runner.get(key);
      return { ...result, ...(record ? { record } : {}) };
    }
    return stopOrCancelStored(this.opts.store.runner, this.files, key, kind);
  }
}

/** A refusal or a store failure as the R66Error of an order. */
export function asOrderError(err: unknown): R66Error {
  return R66Error.from(err);
}
