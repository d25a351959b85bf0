/**
 * Public types of the transfer engine (design.md §2 `src/transfer`): what callers (client CLI,
 * REST, FileWatcher, the scheduler) give and get back. No behaviour here.
 */
import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { DirectoryConfig, LimitConfig, RoleEntry } from '../config/index.js';
import type { ErrorCodeInfo } from '../model/error-code.js';
import type { Notify } from '../model/notifications.js';
import type { TransferKey, TransferRecord } from '../model/transfer.js';
import type { ConnectionPool } from '../net/pool.js';
import type { RequestHandlers } from '../net/handlers.js';
import type { LocalIdentity } from '../net/partner.js';
import type { Repositories } from '../store/index.js';
import type { EngineHooks, TaskRegistry } from '../tasks/index.js';
import type { PreparedTransfer } from './engine.js';
import type { TransferFileSystem } from './file/storage.js';

/** Where the engine finds rules: the database (`store.rules`) or rule files loaded in memory. */
export interface RuleSource {
  get(idRule: string): Promise<import('../model/rule.js').Rule | undefined>;
}

/**
 * What the engine asks of the process's order service (src/operations' TransferOrders satisfies
 * it), handed in at composition (engineWithOrders): the rows of the transfers it creates. The
 * engine never builds the service: it sits a layer above (design.md §1).
 */
export interface EngineOrders {
  prepareNow(req: TransferRequest, opts?: { send?: boolean }): Promise<PreparedTransfer>;
  submitLater(req: TransferRequest): Promise<bigint>;
  reschedule(record: TransferRecord, at: Date): Promise<void>;
}

/** The engine's stop, cancel and restart of this host's rows that do not run here (src/operations/stored-orders.ts). */
export interface StoredOrders {
  stopOrCancel(key: TransferKey, kind: 'stop' | 'cancel'): Promise<{ code: ErrorCodeInfo; message: string }>;
  restart(key: TransferKey, at: Date): Promise<{ code: ErrorCodeInfo; message: string }>;
}

/** What the engine is built from. */
export interface TransferEngineOptions<O extends EngineOrders = EngineOrders> {
  /** This host: host ids, digest, global digest, compression (what Authent announced). */
  identity: LocalIdentity;
  /** server.xml `directories` (absolute paths and virtual defaults). */
  directories: DirectoryConfig;
  /**
   * Absolute directories, besides the host's, where a file to send may lie (file policy): the
   * FileWatcher's watched directories. Default none.
   */
  extraServed?: readonly string[];
  /**
   * The process's order service (src/operations), made by the composition with this engine as its
   * live one; `engine.orders` is it: one TransferOrders per process.
   */
  orders: O;
  /** The orders on this host's rows that do not run here (stop, cancel, restart of a stored row). */
  storedOrders: StoredOrders;
  /**
   * server.xml `limit` values the engine uses: blockSize, gapRestart, digest, globalDigest,
   * localDigest, compression, timeoutCon, delayRetry, runLimit, delayCommand, sessionLimit,
   * globalLimit, delayLimit.
   */
  limits: LimitConfig;
  /** The RUNNER (and rules/hosts) repositories. A store or a no-database store. */
  store: Pick<Repositories, 'runner' | 'rules' | 'hosts'> & { nextTransferId(): Promise<bigint> };
  /** Rules: defaults to `store.rules`; a client without database passes its rule files. */
  rules?: RuleSource;
  /** Connections to partners (shared with the other client operations). */
  pool: ConnectionPool;
  /** The host's command handlers: the engine registers Request and the transfer Valid/JsonCommand commands. */
  handlers?: RequestHandlers;
  /** Task types. */
  tasks: TaskRegistry;
  logger: Logger;
  /** Application notifications (the server's SNMP agent: a refused request); absent: none. */
  notify?: Notify;
  /** Extra hooks for tasks (RESTART on a server). TRANSFER and RESCHEDULE are provided by the engine. */
  hooks?: Pick<EngineHooks, 'restarter'>;
  /** Host id of the owner of the rows (OWNERREQ): the non-TLS host id. Default identity.hostId. */
  ownerId?: string;
  /** Most blocks between two saves of RANK (default 1024); RANK is also saved every second. */
  rankSaveBlocks?: number;
  /** The alive window of a running row (alive.ts; default max(60 s, 2 × timeoutcon)): tasks keep the row fresher than it. Tests shorten it. */
  aliveWindowMs?: number;
  /** Large received files written around the page cache (file/direct-writer.ts); default `SVC_R66_DIRECT_WRITES`, on. */
  directWrites?: boolean;
  /** Large files' global hashes computed on a hashing thread (hash/global-hash.ts); default `SVC_R66_HASH_THREAD`, on. */
  hashThread?: boolean;
  /**
   * Where the transfers' files live: the files sent, received, resumed and placed (file/storage.ts).
   * Default the host's file system (file/local-file-system.ts); file/memory-file-system.ts keeps them in memory.
   */
  files?: TransferFileSystem;
  /** Retries of a transfer whose connection failed (synchronous submissions; default 0). */
  connectRetries?: number;
  /**
   * server.xml `roles` (config.md §3.10): the roles of partners sending transfer orders (stop and
   * cancel need SYSTEM, restart TRANSFER). Default none: admin partners are FULLADMIN, others PARTNER.
   */
  roles?: readonly RoleEntry[];
}

/** A transfer to start now (client `send`/`transfer`) or later (`asend`, `-start`/`-delay`). */
export interface TransferRequest {
  /** Partner host id. */
  partner: string;
  rule: string;
  /**
   * File name. Send modes: a local file (absolute, or relative to the rule's send directory).
   * Receive modes: the name (or wildcard pattern) in the partner's send directory.
   */
  file: string;
  /** Per-block digest (client `-md5`): the rule's mode becomes its MD5 variant. */
  md5?: boolean;
  /** Requested block size; default the host's `blocksize`. */
  blockSize?: number;
  /** File information (`-info`), default `noinfo`; `#COMPRESS#` asks for block compression. */
  fileInfo?: string;
  /** Do not append the follow id JSON (`-nofollow`). */
  noFollow?: boolean;
  /** Reuse this transfer id (restart of an existing record, `-id`). */
  id?: bigint;
  /** Planned start (submissions only); default now. */
  start?: Date;
  /**
   * Through modes (r66-protocol.md §4, modes 5-8): the application's stream instead of a local
   * file, a Readable the data is read from when this host sends, a Writable it is written to when
   * this host receives. The mode becomes the rule's through variant; `file` is only the name the
   * partner gets (send) or the file asked for (receive). Only for transfers run now (transfer(),
   * submitSend(), submitRecv()): a stream cannot wait in the database. Starts at rank 0, no retry.
   */
  stream?: Readable | Writable;
}

/** The three columns naming a transfer on a host (with OWNERREQ = this host). */
export interface TransferRef {
  specialId: bigint;
  requester: string;
  requested: string;
}

/**
 * Moments of a requester's attempt that its caller can act on: msend runs its files one after
 * another, and uses them to prepare and start the next one (src/cli/r66client/send.ts).
 */
export interface AttemptSignals {
  /**
   * The attempt has sent a packet and waits for the partner's answer with nothing of its own to do
   * (the sender: EndTransfer, while the partner syncs its file; the receiver: the Request). Called
   * at most once per attempt.
   */
  waiting?(): void;
  /**
   * This host, sending, has sent EndRequest: the outcome is success whatever the partner answers
   * (runRequester()). Never called otherwise.
   */
  decided?(): void;
}

/** How a transfer ended. */
export interface TransferOutcome {
  /** The RUNNER row as this host stored it at the end. */
  record: TransferRecord;
  /** CompleteOk on success, else the error code (wire, database, exit code derive from it). */
  code: ErrorCodeInfo;
  /** Human-readable reason on failure (never a stack). */
  message: string;
  /** Absolute path of the final file on this host (receiver) or of the file sent. */
  file: string | null;
  /**
   * True when this host could not write the end in its row (its database was unavailable): the
   * row may still say RUNNING, and `record` is the attempt's memory, not the row. The scheduler
   * reads the row back and writes the retry once the database answers (docs/transfers.md).
   */
  unrecorded?: boolean;
}

/** Answer of stop/cancel/restart, as the admin command answers it (r66-protocol.md §9.9). */
export interface ControlResult {
  /**
   * stop/cancel: CompleteOk (done on a running transfer or on the record), TransferOk (nothing
   * could be done). restart: PreProcessingOk (resubmitted), CompleteOk (already complete),
   * QueryStillRunning, Internal (unknown).
   */
  code: ErrorCodeInfo;
  message: string;
}

/** Progress events, emitted at most every rank save (not per block). */
export interface TransferProgress {
  ref: TransferRef;
  rank: number;
  blockSize: number;
  /** Bytes moved in this session (after a restart: since the restart rank). */
  bytes: number;
  /** Expected size, -1 unknown. */
  size: number;
  isSender: boolean;
}

/** Events of a TransferEngine (`engine.on(name, listener)`). */
export interface TransferEngineEvents {
  /** A transfer (either role) started its conversation. */
  start: (record: TransferRecord) => void;
  progress: (p: TransferProgress) => void;
  /** A transfer ended (success or error) on this host. */
  end: (outcome: TransferOutcome) => void;
}

/** Run-time bandwidth limits, bytes/s, 0 = unlimited (bandwidth.md §1). */
export interface BandwidthLimits {
  writeGlobal: number;
  readGlobal: number;
  writeSession: number;
  readSession: number;
}
