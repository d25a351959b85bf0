import type { Host } from '../model/host.js';
import type { HostConfig } from '../model/host-config.js';
import type { Limits } from '../model/limits.js';
import type { MultipleMonitor } from '../model/multiple-monitor.js';
import type { Rule } from '../model/rule.js';
import type { TaskStep, TransferKey, TransferRecord, UpdatedInfo } from '../model/transfer.js';
import type { RowFields, StateChange, TransferMove, TransferState, TransferStateChange } from '../model/transfer-state.js';

export type { TransferStateChange } from '../model/transfer-state.js';

// The repository interfaces every store implements (database and no-database mode alike).
// "upsert" means insert, or replace every column when the key exists — what loadauth/loadrule do.

/** Partners (table HOSTS). */
export interface HostRepository {
  get(hostId: string): Promise<Host | undefined>;
  /** All hosts, ordered by host id; optional filters combine with AND. */
  list(filter?: HostFilter): Promise<Host[]>;
  /** Fails with StoreError when the host id exists. */
  insert(host: Host): Promise<void>;
  upsert(host: Host): Promise<void>;
  /** upsert() of many hosts in a few statements (loadauth); a host id given twice: the last wins. */
  upsertMany(hosts: readonly Host[]): Promise<void>;
  /** Returns false when no such host. */
  delete(hostId: string): Promise<boolean>;
  /** Sets UPDATEDINFO (3 = reload asked, 1 = seen; database.md §9.2). */
  setUpdatedInfo(hostId: string, updatedInfo: UpdatedInfo): Promise<boolean>;
}

export interface HostFilter {
  /** SQL LIKE pattern on HOSTID (`%` and `_`). */
  hostIdLike?: string;
  address?: string;
  isSsl?: boolean;
  isActive?: boolean;
  updatedInfo?: UpdatedInfo;
}

/** Transfer rules (table RULES). */
export interface RuleRepository {
  get(idRule: string): Promise<Rule | undefined>;
  /** All rules ordered by id; optional filters combine with AND. */
  list(filter?: RuleFilter): Promise<Rule[]>;
  insert(rule: Rule): Promise<void>;
  upsert(rule: Rule): Promise<void>;
  /** Refuses (StoreError) while RUNNER rows use the rule (database.md §3.2); false when absent. */
  delete(idRule: string): Promise<boolean>;
  setUpdatedInfo(idRule: string, updatedInfo: UpdatedInfo): Promise<boolean>;
}

export interface RuleFilter {
  idRuleLike?: string;
  mode?: number;
  updatedInfo?: UpdatedInfo;
}

/** Filters for lists, counts, export and purge (history.md, REST). All combine with AND. */
export interface TransferFilter {
  ownerReq?: string;
  /** Inclusive SPECIALID bounds. */
  specialIdFrom?: bigint;
  specialIdTo?: bigint;
  /** Inclusive STARTTRANS bounds. */
  startFrom?: Date;
  startTo?: Date;
  /** Inclusive STOPTRANS bounds. */
  stopFrom?: Date;
  stopTo?: Date;
  idRule?: string;
  requester?: string;
  requested?: string;
  /** REQUESTER = x OR REQUESTED = x. */
  partner?: string;
  updatedInfo?: UpdatedInfo[];
  globalStep?: TaskStep[];
  /**
   * Status flags of the log export (database.md §10.3), combined with OR: pending = UPDATEDINFO 3,
   * transfer = 5, error = UPDATEDINFO 4 or 2 or GLOBALSTEP 5, done = UPDATEDINFO 6 or GLOBALSTEP 4.
   */
  status?: { pending?: boolean; transfer?: boolean; error?: boolean; done?: boolean };
  /** Transfers whose TRANSFERINFO carries `"follow":<id>`. */
  followId?: bigint;
  /** Only rows that are not RUNNING (UPDATEDINFO <> 5); used by purges. */
  notRunning?: boolean;
}

/**
 * One group of {@link RunnerRepository.tally}: the rows sharing a direction and the four state
 * columns, how many, and the latest STARTTRANS among them.
 */
export interface TransferTally {
  /** REQUESTED is the host the tally was asked for (it received the request). */
  inbound: boolean;
  updatedInfo: UpdatedInfo;
  globalStep: TaskStep;
  /** STEPSTATUS and INFOSTATUS error code characters. */
  stepStatus: string;
  infoStatus: string;
  count: number;
  lastStart: Date;
}

export interface TransferListOptions {
  orderBy?: 'specialId' | 'start' | 'stop';
  descending?: boolean;
  limit?: number;
  offset?: number;
}

/**
 * A row a move starts from: its key and the state the move is checked against (a row read from
 * the store, or the record a caller holds).
 */
export type MoveTarget = TransferKey & TransferState;

/** What a move or a staged write wrote: every column set, STOPTRANS included. */
export type WrittenChange = TransferStateChange & { stop: Date };

/**
 * Transfers (table RUNNER). Only src/store writes RUNNER (issue 33 item 2, decision 0047), and
 * only through these methods; test/store/runner-writers.test.ts keeps callers outside src/store to
 * them:
 * - a new row: {@link insert}/{@link insertMany} of a record a row builder made (transfer/new-record.ts,
 *   operations/), or {@link importRows} of rows an export or a migration carries;
 * - a state change: {@link move}, one move of the state machine (model/transfer-state.ts) the
 *   store checks against the row's state and writes, with the non-state `fields` it carries;
 *   {@link saveMoves}, the moves the engine's RunnerRow computed in memory (several staged moves
 *   in one statement); {@link resetInterrupted}/{@link markFinishedAsDone}, the set-based moves;
 * - a named non-state update: {@link updateRank} (progress), {@link updateInfo} (the transfer
 *   information), {@link reschedule} (the next start), {@link updateFilename} (the file a clean deleted),
 *   {@link updateAlive} (the heartbeat of a running transfer: STOPTRANS);
 * - removal: {@link delete} (remove order), {@link deleteWhere} (purge).
 * No method saves a whole row over a stored one: a state column is only written as a move computed it.
 */
export interface RunnerRepository {
  /** A new row. Fails with StoreError when the key exists. */
  insert(record: TransferRecord): Promise<void>;
  /**
   * New rows, each as {@link insert} writes it, all or nothing (one transaction, or the
   * caller's): fails with StoreError, inserting none, when any key exists.
   */
  insertMany(records: readonly TransferRecord[]): Promise<void>;
  /**
   * Rows read from an export (the log import) or another installation: each inserted, or
   * replacing every column of the row with its key. Not for rows of this host's transfers.
   */
  importRows(records: readonly TransferRecord[]): Promise<void>;
  get(key: TransferKey): Promise<TransferRecord | undefined>;
  /** Every row of this owner with this id (one per requester/requested pair, normally one). */
  findBySpecialId(ownerReq: string, specialId: bigint): Promise<TransferRecord[]>;
  /**
   * One move of the state machine on the row of `row`'s key: the columns `transition(row, move)`
   * computes from `row`'s state, the non-state `fields`, and STOPTRANS (`fields.stop`, or now),
   * in one UPDATE. An illegal move throws illegalTransition()'s error and writes nothing. Returns the
   * columns written, or undefined when no row has the key.
   */
  move(row: MoveTarget, move: TransferMove, fields?: RowFields): Promise<WrittenChange | undefined>;
  /**
   * The engine's staged write (transfer/persistence.ts RunnerRow): the state columns its moves
   * computed in memory (`moved`, made only by the state machine's transition()/mergeMoves(),
   * absent when none is staged) and the non-state `fields`, in one UPDATE. False when no row.
   */
  saveMoves(key: TransferKey, moved: StateChange | undefined, fields: RowFields): Promise<boolean>;
  /** Progress, the hot path during the data phase: RANK and STOPTRANS only. */
  updateRank(key: TransferKey, rank: number): Promise<boolean>;
  /** The transfer information a task or the scheduler changed: FILEINFO and/or TRANSFERINFO, and STOPTRANS. */
  updateInfo(key: TransferKey, info: { fileInfo?: string; transferInfo?: string }): Promise<boolean>;
  /**
   * The next start of a transfer: STARTTRANS, and TRANSFERINFO when given (a RESCHEDULE task marks
   * it); the state columns follow with the transfer's own move (inError rescheduled, retryLater).
   */
  reschedule(key: TransferKey, at: Date, transferInfo?: string): Promise<boolean>;
  /** FILENAME alone (cancel and clean names the deleted file, web-ui.md §2). */
  updateFilename(key: TransferKey, filename: string): Promise<boolean>;
  /**
   * STOPTRANS alone: the heartbeat of a transfer running long tasks without other writes
   * (transfer/persistence.ts RunnerRow.keepFresh()), so other processes see it alive (transfer/alive.ts).
   */
  updateAlive(key: TransferKey): Promise<boolean>;
  list(filter?: TransferFilter, options?: TransferListOptions): Promise<TransferRecord[]>;
  count(filter?: TransferFilter): Promise<number>;
  /**
   * The matching rows counted by direction (REQUESTED = `host` or not) and state columns, in the
   * database: a handful of groups whatever the number of rows (the SNMP counters, §B.4).
   */
  tally(filter: TransferFilter, host: string): Promise<TransferTally[]>;
  delete(key: TransferKey): Promise<boolean>;
  /** Deletes every row matching the filter; returns how many. */
  deleteWhere(filter: TransferFilter): Promise<number>;
  /**
   * Rows the scheduler must start now (database.md §9.1): this owner, UPDATEDINFO = 3,
   * STARTTRANS <= now, oldest first, at most `limit`.
   */
  listDue(ownerReq: string, now: Date, limit: number): Promise<TransferRecord[]>;
  /** At server start, RUNNING (5) and INTERRUPTED (2) rows of this owner go back to TOSUBMIT (3). */
  resetInterrupted(ownerReq: string): Promise<number>;
  /**
   * The original's "clean" (database.md §6, §10.2): rows of this owner with GLOBALLASTSTEP 4,
   * UPDATEDINFO neither 6 nor 0, and STEPSTATUS > 'O' become DONE (6).
   */
  markFinishedAsDone(ownerReq: string): Promise<number>;
}

/** Per-server business/roles/aliases/others (table HOSTCONFIG). */
export interface HostConfigRepository {
  get(hostId: string): Promise<HostConfig | undefined>;
  list(): Promise<HostConfig[]>;
  upsert(config: HostConfig): Promise<void>;
  delete(hostId: string): Promise<boolean>;
  setUpdatedInfo(hostId: string, updatedInfo: UpdatedInfo): Promise<boolean>;
}

/** Bandwidth limits per server (table CONFIGURATION). */
export interface LimitsRepository {
  get(hostId: string): Promise<Limits | undefined>;
  list(): Promise<Limits[]>;
  upsert(limits: Limits): Promise<void>;
  delete(hostId: string): Promise<boolean>;
  setUpdatedInfo(hostId: string, updatedInfo: UpdatedInfo): Promise<boolean>;
}

/** Cluster change counters (table MULTIPLEMONITOR). */
export interface MultipleMonitorRepository {
  get(hostId: string): Promise<MultipleMonitor | undefined>;
  /**
   * Reads the row with a row lock (SELECT ... FOR UPDATE on PostgreSQL/MariaDB; SQLite locks the
   * whole database for a write transaction). Meaningful inside {@link Store.transaction}.
   */
  getForUpdate(hostId: string): Promise<MultipleMonitor | undefined>;
  /**
   * Inserts the row unless its key exists (then nothing changes); true when inserted. One
   * statement that never fails on a duplicate: members starting at once may all call it, and a
   * row another member already took is left as it is.
   */
  insertIfAbsent(monitor: MultipleMonitor): Promise<boolean>;
  upsert(monitor: MultipleMonitor): Promise<void>;
  delete(hostId: string): Promise<boolean>;
}

/** The repositories of one store, or of one transaction. */
export interface Repositories {
  hosts: HostRepository;
  rules: RuleRepository;
  runner: RunnerRepository;
  hostConfigs: HostConfigRepository;
  limits: LimitsRepository;
  multipleMonitors: MultipleMonitorRepository;
}
