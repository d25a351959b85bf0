/**
 * What every transfer session borrows from the engine: settings, store, tasks, shaper, the table
 * of running transfers and the event sink. Internal to src/transfer.
 */
import type { Logger } from 'pino';
import type { DirectoryConfig, LimitConfig } from '../config/index.js';
import type { Notify } from '../model/notifications.js';
import type { Rule } from '../model/rule.js';
import type { TransferRecord } from '../model/transfer.js';
import type { LocalIdentity } from '../net/partner.js';
import type { ConnectionPool } from '../net/pool.js';
import type { RunnerRepository } from '../store/index.js';
import type { EngineHooks, TaskRegistry } from '../tasks/index.js';
import type { TransferFileSystem } from './file/storage.js';
import type { BandwidthShaper } from './shaper.js';
import type { TransferOutcome, TransferProgress } from './types.js';

/** The running-table key the original uses: `<requested> <requester> <specialId>`. */
export function runningKey(r: { requested: string; requester: string; specialId: bigint }): string {
  return `${r.requested} ${r.requester} ${r.specialId}`;
}

/** A running session as the engine's controls see it. */
export interface RunningTransfer {
  record: TransferRecord;
  /** Ends the transfer locally with this error (stop, cancel, shutdown): the error goes to the partner. */
  abort(err: Error): void;
}

export interface EngineCore {
  identity: LocalIdentity;
  directories: DirectoryConfig;
  /** TransferEngineOptions.extraServed. */
  extraServed: readonly string[];
  limits: LimitConfig;
  runner: RunnerRepository;
  findRule(idRule: string): Promise<Rule | undefined>;
  pool: ConnectionPool;
  tasks: TaskRegistry;
  shaper: BandwidthShaper;
  logger: Logger;
  /** TransferEngineOptions.notify. */
  notify?: Notify | undefined;
  ownerId: string;
  nextTransferId(): Promise<bigint>;
  rankSaveBlocks: number;
  /** How long a RUNNING row counts as alive after its last write (alive.ts); tasks keep it fresher. Default from limits.timeoutCon. */
  aliveWindowMs?: number;
  /** Large new work files written with O_DIRECT (file/direct-writer.ts). */
  directWrites: boolean;
  /** Large files' global hashes computed on a hashing thread (hash/global-hash.ts). */
  hashThread: boolean;
  /** Where the transfers' files live (TransferEngineOptions.files): every file operation of a transfer goes through it. */
  files: TransferFileSystem;
  /** Hooks lent to tasks, built per session (TRANSFER, RESCHEDULE need the current record). */
  hooksFor(record: TransferRecord): EngineHooks;
  running: Map<string, RunningTransfer>;
  /** True while new requests are refused with `l` (block order, shutdown, connection limit). */
  refusesRequests(): boolean;
  emitProgress(p: TransferProgress): void;
  emitStart(record: TransferRecord): void;
  emitEnd(outcome: TransferOutcome): void;
}
