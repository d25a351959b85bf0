/**
 * The row of a transfer this host requests, for the orders the engine runs or submits itself
 * (send now: CLI send/msend, the FileWatcher's direct mode, a through stream; submit for later:
 * the TRANSFER task, the business TRANSFER). TransferOrders calls it (prepareNow, submitLater):
 * with the one row builder (new-record.ts) and the file policy (the engine's served directories),
 * and, for an id given whose row exists, the state machine's move of that row.
 *
 * Its checks and errors are the engine's (R66Error, as the direct commands print them): the
 * partner is known and is not this host, the rule is known (and of the direction asked), the file
 * to send lies under the policy and exists (a transfer run now whose file is missing is created
 * anyway and fails at its first attempt with FileNotFound, as the original's DirectTransfer).
 */
import type { Readable, Writable } from 'node:stream';
import { servedDirectories } from '../fs/file-policy.js';
import { ErrorCode } from '../model/error-code.js';
import type { Host } from '../model/host.js';
import { isSendMode, type Rule } from '../model/rule.js';
import { UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import { R66Error } from '../model/r66-error.js';
import type { TransferFileSystem } from '../transfer/file/storage.js';
import { ruleDirectories, senderFileAfterPreTasks, statFileToSend, type FileToSend } from '../transfer/placement.js';
import type { ThroughStream } from '../transfer/through.js';
import type { TransferRequest } from '../transfer/types.js';
import type { DirectoryConfig } from '../config/index.js';
import type { RunnerRepository } from '../store/index.js';
import { modeOf, newTransferRecord } from '../transfer/new-record.js';

/** What the creation reads: the order service's store, ids and directories. */
export interface RequesterRecordDeps {
  runner: Pick<RunnerRepository, 'get' | 'insert' | 'move' | 'reschedule'>;
  rule(id: string): Promise<Rule | undefined>;
  partner(hostId: string): Promise<Host | undefined>;
  nextTransferId(): Promise<bigint>;
  /** OWNERREQ and this host's plain id. */
  hostId: string;
  sslHostId?: string | undefined;
  directories: DirectoryConfig;
  /** Directories besides the host's where a file to send may lie (TransferOrdersOptions.extraServed). */
  extraServed: readonly string[];
  blockSize: number;
  /** Where the files to send are (TransferOrdersOptions.files). */
  files: TransferFileSystem;
}

/** The row of a new (or restarted) requester transfer, with what its first attempt reuses. */
export interface RequesterRecord {
  record: TransferRecord;
  /** The sender's local file as stat() found it; null otherwise. */
  file: FileToSend | null;
  /** True when the row is in RUNNER already (submitted, or an existing id). */
  inserted: boolean;
  rule?: Rule;
  partner: Host;
}

/** The rule `ruleId`; with `send`, refused unless its direction is that one (true: this host sends). */
async function findRule(deps: RequesterRecordDeps, ruleId: string, send?: boolean): Promise<Rule> {
  const rule = await deps.rule(ruleId);
  if (rule === undefined) throw new R66Error(ErrorCode.IncorrectCommand, `rule ${ruleId} is not known on this host`);
  if (send !== undefined && isSendMode(rule.mode) !== send) {
    throw new R66Error(ErrorCode.IncorrectCommand, `rule ${ruleId} is a ${isSendMode(rule.mode) ? 'send' : 'receive'} rule: use ${send ? 'a receive' : 'a send'} transfer`);
  }
  return rule;
}

/**
 * The RUNNER row of a transfer with this host as requester (database.md §6, §9.1). `updatedInfo`
 * UNKNOWN: run now, the row left to the first attempt's first write (`insert` false); TOSUBMIT:
 * for the scheduler, inserted here. An id given whose row exists: that row, moved back for the
 * scheduler (retryLater) when submitted, its start changed when run now. `send` refuses a rule
 * of the other direction.
 */
export async function requesterRecord(deps: RequesterRecordDeps, req: TransferRequest, updatedInfo: UpdatedInfo.UNKNOWN | UpdatedInfo.TOSUBMIT, insert: boolean, send?: boolean): Promise<RequesterRecord> {
  // The partner entry read here is the one the first attempt opens its channel with.
  const host = await deps.partner(req.partner);
  if (host === undefined) throw new R66Error(ErrorCode.NotKnownHost, `partner ${req.partner} is not known`);
  // A transfer to this host itself is accepted as the original does (one row; the requested side
  // keeps its state in memory, transfer/requested.ts).
  const requester = host.isSsl ? deps.sslHostId ?? deps.hostId : deps.hostId;
  if (req.id !== undefined) {
    const existing = await deps.runner.get({ specialId: req.id, requester, requested: req.partner, ownerReq: deps.hostId });
    if (existing) {
      // A direction asked for is checked before anything is written, as for a new row.
      if (send !== undefined) await findRule(deps, req.rule, send);
      // For later: TOSUBMIT at its start (a finished row is refused by the state machine); now:
      // the attempt moves it (runRequester), only its next start changes here.
      if (updatedInfo === UpdatedInfo.TOSUBMIT) {
        Object.assign(existing, await deps.runner.move(existing, { kind: 'retryLater', at: req.start ?? existing.start }));
      } else if (req.start) {
        await deps.runner.reschedule(existing, req.start);
        existing.start = req.start;
      }
      return { record: existing, file: null, inserted: true, partner: host };
    }
  }
  const rule = await findRule(deps, req.rule, send);
  const mode = modeOf(rule, req.md5, req.stream !== undefined);
  let file: FileToSend | null = null;
  let notFound = false;
  // A send-through rule's pre-tasks may produce the file (S3GET): looked for after them (runRequester).
  if (isSendMode(mode) && req.stream === undefined && !senderFileAfterPreTasks(rule, mode, false)) {
    // The file policy: relative to the rule's send directory, or absolute inside the host's directories.
    try {
      file = await statFileToSend(deps.files, ruleDirectories(rule, deps.directories), req.file, servedDirectories(deps.directories, ...deps.extraServed));
    } catch (err) {
      // A transfer run now whose file is missing is a transfer that fails (f, its row in error,
      // the client's exit 27) as the original's DirectTransfer does: the attempt looks again and ends it.
      if (insert || !(err instanceof R66Error) || err.code !== ErrorCode.FileNotFound) throw err;
      notFound = true;
    }
  }
  const now = new Date();
  const record = newTransferRecord({
    specialId: req.id ?? (await deps.nextTransferId()), ownerId: deps.hostId, requester, partner: req.partner, rule,
    md5: req.md5, through: req.stream !== undefined, blockSize: req.blockSize ?? deps.blockSize, file: req.file, size: notFound ? null : file?.size ?? -1,
    fileInfo: req.fileInfo, noFollow: req.noFollow, updatedInfo, start: req.start ?? now, now,
  });
  // A stream of the wrong direction is refused before anything is written.
  if (req.stream !== undefined) throughOf(record, req.stream);
  if (insert) await deps.runner.insert(record);
  return { record, file, inserted: insert, rule, partner: host };
}

/** The stream of a through transfer for its direction (Readable to send, Writable to receive). */
export function throughOf(record: TransferRecord, stream: Readable | Writable): ThroughStream {
  if (isSendMode(record.mode)) {
    if (typeof (stream as Readable).read !== 'function') throw new R66Error(ErrorCode.IncorrectCommand, 'a send through transfer needs a readable stream');
    return { source: stream as Readable };
  }
  if (typeof (stream as Writable).write !== 'function') throw new R66Error(ErrorCode.IncorrectCommand, 'a receive through transfer needs a writable stream');
  return { sink: stream as Writable };
}
