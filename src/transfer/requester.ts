/**
 * The requester's side of a transfer (r66-protocol.md §9.2 "A's processing"): opens an
 * authenticated channel, sends Request(way 0) with the record's id and rank, adopts what the answer
 * says (block size, rank, limit, name and size when receiving), runs its pre-tasks, sends a change
 * notification when it is the sender and the name or size changed (§9.5), then runs the data
 * phase of its role.
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import type { Host } from '../model/host.js';
import { isSendMode, type Rule } from '../model/rule.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import { R66Error } from '../model/r66-error.js';
import { unexpected } from '../net/commands/unexpected.js';
import {
  allowsFileInfoInChange, createR66Digest, encodeValidCommand, errorOfPacket, negotiateBlockSize, newJsonCommand, PacketType, requestEncodingFor, type RequestPacket,
} from '../protocol/index.js';
import { awaitAnswer } from './answer-wait.js';
import { runningKey, type EngineCore } from './core.js';
import { RunnerRow } from './persistence.js';
import { isLegal, restartPoint } from './state.js';
import { servedDirectories } from '../fs/file-policy.js';
import { ruleDirectories, senderFileAfterPreTasks, sizeAfterPreTasks, statFileToSend, type FileToSend, type RuleDirectories } from './placement.js';
import { finishPlacedInsteadOfData, openWorkFile, postTasksEnded, runReceiver } from './receiver.js';
import { MAX_DIGEST, runSender } from './sender.js';
import { BlockReader } from './block-reader.js';
import { hashesOffThread } from './hash/global-hash.js';
import { combineLimits } from './shaper.js';
import { isRetryableEnd, TransferSession, toR66Error } from './session.js';
import type { ThroughStream } from './through.js';
import type { AttemptSignals, TransferOutcome } from './types.js';

/** Block compression is on when both allow it and the information asks for it (§11). */
export function compressionAgreed(core: EngineCore, partnerCompression: boolean, fileInfo: string): boolean {
  return core.identity.compression && partnerCompression && fileInfo.includes('#COMPRESS#');
}

/** Ends a record that never reached the partner (no session, no error tasks on the partner). */
async function failBeforeSession(core: EngineCore, row: RunnerRow, code: ErrorCodeInfo, message: string, retry: boolean): Promise<TransferOutcome> {
  await row.move({ kind: 'failedBeforeSession', code, retry });
  const outcome: TransferOutcome = { record: { ...row.record }, code, message, file: null };
  core.emitEnd(outcome);
  return outcome;
}

/**
 * What the engine already knows on a new transfer's first attempt: whether its row is in RUNNER
 * yet (a new row is inserted by the attempt's first write, with the attempt's columns), the local
 * file it just found (no second stat a few microseconds later), and the rule and partner entry it
 * read to create the transfer (the mode and that file come from this rule: the attempt runs with
 * the same one instead of reading both rows again; later attempts read them afresh).
 */
export interface FirstAttempt {
  inserted: boolean;
  file: FileToSend | null;
  /** The rule the record was created from; absent when the engine did not read it. */
  rule?: Rule;
  /** The partner entry read for the record (ConnectionPool.partner()); absent when not read. */
  partner?: Host;
}

/**
 * Runs one attempt of the transfer `record` (a RUNNER row of this host as requester). Never
 * throws: every end is an outcome with its code, and the row says the same. `retryable` tells the
 * caller whether the failure may be retried (connection impossible, partner overloaded).
 * `signals` (AttemptSignals): told when the attempt waits for the partner, and once this host, as
 * the sender, has sent EndRequest: the outcome then no longer depends on the partner (its answer
 * is only waited for, see runSender()). A caller running transfers one after another (msend)
 * prepares the next one at the first and starts it at the second.
 */
export async function runRequester(core: EngineCore, record: TransferRecord, through: ThroughStream | null = null, first?: FirstAttempt, signals?: AttemptSignals): Promise<TransferOutcome & { retryable: boolean }> {
  const row = new RunnerRow(core.runner, record, first?.inserted ?? true);
  // As created (engine or asend/masend) and never tried: no step, no rank, no status yet.
  const neverStartedBefore = record.globalLastStep === TaskStep.NOTASK && record.rank === 0 && record.stepStatus === ErrorCode.Unknown;
  const key = runningKey(record);
  if (!isLegal(record, 'attemptStart')) {
    // A finished row is not run again (the state machine refuses the move; nothing written).
    return { record: { ...record }, code: ErrorCode.QueryAlreadyFinished, message: `transfer ${record.specialId} is already finished`, file: null, retryable: false };
  }
  if (core.running.has(key)) {
    return { record: { ...record }, code: ErrorCode.QueryStillRunning, message: `transfer ${record.specialId} is already running`, file: null, retryable: false };
  }
  const rule = first?.rule ?? (await core.findRule(record.idRule));
  if (rule === undefined) return { ...(await failBeforeSession(core, row, ErrorCode.IncorrectCommand, `Rule not found: ${record.idRule}`, false)), retryable: false };
  const isSender = isSendMode(record.mode);
  const dirs = ruleDirectories(rule, core.directories);
  let localFile: string | null = null;
  let size = -1;
  // A send-through rule's pre-tasks may produce the file (S3GET): converse() looks for it after them.
  const fileAfterPreTasks = isSender && senderFileAfterPreTasks(rule, record.mode, through !== null);
  if (isSender && record.globalLastStep < TaskStep.POSTTASK && through === null && !fileAfterPreTasks) {
    try {
      ({ path: localFile, size } = first?.file ?? (await senderFile(core, dirs, record)));
    } catch (err) {
      const e = toR66Error(err, dirs);
      return { ...(await failBeforeSession(core, row, e.code, e.message, false)), retryable: false };
    }
  }
  // A new attempt: back to the restart point, so its error tasks run again if it fails (tasks.md §3).
  // Staged: written with the rank just before the Request goes out (or by the failure's write).
  await row.move({ kind: 'attemptStart' }, {}, false);
  let opened;
  try {
    opened = await core.pool.openChannel(record.requested, first?.partner);
  } catch (err) {
    const e = toR66Error(err);
    const retryable = e.code === ErrorCode.ConnectionImpossible || e.code === ErrorCode.Disconnection;
    // A retryable failure is written TOSUBMIT at once: the caller decides (retry or INERROR), and
    // the row never shows a transient INERROR between the two writes.
    return { ...(await failBeforeSession(core, row, e.code, e.message, retryable)), retryable };
  }
  const { channel, partner } = opened;
  const session = new TransferSession({ core, row, rule, dirs, channel, partner, isRequester: true, isSender });
  session.file = localFile ?? (record.isMoved || record.globalLastStep >= TaskStep.TRANSFERTASK ? record.filename : null);
  session.size = size;
  session.through = through;
  session.neverStartedBefore = neverStartedBefore;
  session.signals = signals ?? null;
  core.running.set(key, { record, abort: (e) => session.abort(e) });
  core.emitStart(record);
  try {
    const outcome = await converse(core, session);
    core.emitEnd(outcome);
    // A lost connection (either side crashed or was stopped) is retried from the saved rank, and so
    // is a partner still running the attempt before (it learns that attempt's end later).
    // So is an end this host's database could not record (the caller reads the row back later).
    const retryable = outcome.unrecorded === true || (isRetryableEnd(outcome.code) && outcome.record.updatedInfo !== UpdatedInfo.DONE);
    return { ...outcome, retryable };
  } finally {
    await session.release();
    core.running.delete(key);
    channel.close();
  }
}

async function converse(core: EngineCore, s: TransferSession): Promise<TransferOutcome> {
  const r = s.record;
  try {
    // A stream cannot seek: a through transfer always starts from its first block.
    const { rank } = restartPoint(r, { isSender: s.isSender, gapRestart: core.limits.gapRestart, through: s.through !== null });
    r.rank = rank;
    const ownLimit = core.shaper.ownLimit(s.isSender);
    const request: RequestPacket = {
      kind: 'request',
      encoding: requestEncodingFor(s.partner.capabilities),
      separator: s.partner.capabilities.separator,
      rule: r.idRule,
      mode: r.mode,
      way: 0,
      filename: s.isSender ? (s.file ?? r.originalName) : r.originalName,
      blockSize: r.blockSize,
      rank,
      specialId: r.specialId,
      code: ErrorCode.InitOk,
      // An empty file is announced as -1 like the original does.
      length: s.isSender && s.size > 0 ? BigInt(s.size) : -1n,
      limit: BigInt(ownLimit),
      fileInformation: r.fileInfo,
    };
    await s.row.set({ rank });
    // A sender without pre-tasks knows its file already: its first blocks are read while the
    // partner prepares the answer (the data pump takes them if the answer keeps rank and block size),
    // and go into the global hash meanwhile.
    if (s.isSender && s.through === null && s.file !== null && r.globalLastStep < TaskStep.POSTTASK && !s.hasTasks('pre')) {
      const identity = s.core.identity;
      s.earlyReader = BlockReader.open(core.files, s.file, r.blockSize, s.md5 ? MAX_DIGEST : 0, rank * r.blockSize, s.size).then((reader) => {
        // A large file's hash goes to a hashing thread once the data flows (hash/global-hash.ts).
        if (identity.globalDigest && !hashesOffThread(identity.digest, s.size, core.hashThread)) reader.hashFirstBatch(createR66Digest(identity.digest));
        return reader;
      });
      s.earlyReader.catch(() => undefined);
    }
    await s.channel.send(request);
    // A receiver has nothing to do until the answer; a sender waits longer at EndTransfer (runSender()).
    if (!s.isSender) s.signals?.waiting?.();
    const answer = await awaitAnswer(s, 'the Request answer');
    if (answer.kind === 'error') throw errorOfPacket(answer);
    if (answer.kind !== 'request' || answer.way !== 1) throw unexpected(answer, 'the Request answer');
    if (answer.code !== ErrorCode.InitOk) {
      if (answer.code === ErrorCode.QueryStillRunning) {
        // The partner still runs an earlier attempt (it has not seen its end yet): retried later.
        await s.row.set({ infoStatus: answer.code });
        return s.outcome(answer.code, `transfer ${r.specialId} is still running on ${s.partner.hostId}`);
      }
      throw new R66Error(answer.code, `Request refused by ${s.partner.hostId}: ${answer.code.meaning}`, { fromPartner: true });
    }
    r.blockSize = negotiateBlockSize(answer.blockSize, core.limits.blockSize);
    r.rank = Math.min(r.rank, answer.rank);
    s.limit = combineLimits(ownLimit, Number(answer.limit));
    s.shaper = core.shaper.session(s.isSender, s.limit);
    s.compression = compressionAgreed(core, s.partner.capabilities.compression, r.fileInfo);
    if (!s.isSender) {
      if (answer.filename.length > 0) r.originalName = answer.filename;
      s.size = Number(answer.length);
    }
    // Staged: written with the pre-tasks' first write, or the data phase's first (RunnerRow.stage()).
    // Only the columns the answer may change: a whole-row UPDATE rewrites every RUNNER index entry.
    s.row.stage({ blockSize: r.blockSize, rank: r.rank, originalName: r.originalName });
    if (r.rank > 0) core.logger.info({ id: String(r.specialId), rank: r.rank, partner: s.partner.hostId }, 'transfer resumed');
    const fileBefore = s.file;
    // Not looked for before the pre-tasks (runRequester): when they did not name one, the requested file.
    const lookAfter = s.isSender && fileBefore === null && senderFileAfterPreTasks(s.rule, r.mode, s.through !== null);
    await s.preTasks();
    if (s.isSender) {
      if (s.record.globalLastStep < TaskStep.POSTTASK && s.through === null) {
        if (s.file === null && lookAfter) s.file = (await senderFile(core, s.dirs, r)).path;
        if (s.file === null) throw new R66Error(ErrorCode.FileNotFound, 'no file to send after the pre-tasks');
        // Only pre-tasks can have changed the file since runRequester's stat: without any, no new stat.
        const realSize = s.file !== fileBefore || s.hasTasks('pre') ? await sizeAfterPreTasks(core.files, s.file) : s.size;
        if (s.file !== fileBefore || realSize !== s.size || (Number(answer.length) !== realSize && realSize > 0)) {
          s.size = realSize;
          await s.row.flush();
          await sendChange(s, s.file !== fileBefore ? 'Change Filename by Pre Task on sender' : 'Change Size on sender');
        }
      }
      return await runSender(s);
    }
    // Killed after the move to its final place, before its post-tasks ended (decision 0033):
    // finished here, the sender told to stop; nothing is received a second time.
    if (r.isMoved && s.through === null && !postTasksEnded(r)) return await finishPlacedInsteadOfData(s);
    if (r.globalLastStep < TaskStep.POSTTASK && s.through === null) {
      await openWorkFile(s, r.rank > 0 || !s.neverStartedBefore);
      await s.row.saveAll();
    }
    return await runReceiver(s);
  } catch (err) {
    return s.fail(err);
  }
}

/** The requester's file to send, under the file policy (statFileToSend). */
function senderFile(core: EngineCore, dirs: RuleDirectories, record: TransferRecord): Promise<FileToSend> {
  return statFileToSend(core.files, dirs, record.filename || record.originalName, servedDirectories(core.directories, ...core.extraServed));
}

/** The change notification (§9.5), JSON or legacy by the partner's version. */
async function sendChange(s: TransferSession, reason: string): Promise<void> {
  const caps = s.partner.capabilities;
  const name = s.wireName();
  if (caps.usesJson) {
    const command = newJsonCommand('RequestJsonPacket', { comment: reason, filename: name, filesize: BigInt(s.size), fileInfo: s.record.fileInfo });
    await s.channel.send({ kind: 'jsonCommand', command, result: '', subType: PacketType.REQUEST });
    return;
  }
  const info = allowsFileInfoInChange(caps) ? s.record.fileInfo : null;
  await s.channel.send(encodeValidCommand({ cmd: 'change', reason, filename: name, size: BigInt(s.size), fileInformation: info }));
}
