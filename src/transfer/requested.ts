/**
 * The requested host's side (r66-protocol.md §9.2 "B's processing"): checks the rule, the
 * partner and the mode, finds or creates its own RUNNER row for (id, requester, requested), runs
 * its pre-tasks and prepares the file, answers Request(way 1), and runs the data phase of its role.
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { isSendMode, ruleAllowsHost } from '../model/rule.js';
import { ILLEGAL_SPECIAL_ID, TaskStep, type TransferRecord } from '../model/transfer.js';
import { R66Error } from '../model/r66-error.js';
import type { RequestContext } from '../net/handlers.js';
import { negotiateBlockSize, type RequestPacket } from '../protocol/index.js';
import { isDatabaseUnavailable } from '../store/index.js';
import { runningKey, type EngineCore } from './core.js';
import { RunnerRow } from './persistence.js';
import { resolveSendFile, ruleDirectories, sizeAfterPreTasks } from './placement.js';
import { finishPlacedFile, openWorkFile, postTasksEnded, runReceiver } from './receiver.js';
import { compressionAgreed } from './requester.js';
import { isFinished, restartPoint } from './state.js';
import { runSender } from './sender.js';
import { combineLimits } from './shaper.js';
import { TransferSession } from './session.js';
import { updateInfoMap } from '../tasks/index.js';
import { requestedRecord } from './new-record.js';

/**
 * The row of the requested side of a request from this host to itself (the original's
 * DbTaskRunner.isSelfRequest): the requester's row is the transfer's only row (same key), so this
 * side keeps its state in memory and writes nothing.
 */
const SELF_REQUEST_ROW = {
  insert: async () => undefined, saveMoves: async () => true, updateRank: async () => true, updateInfo: async () => true, updateAlive: async () => true,
} as unknown as EngineCore['runner'];

function answerWith(p: RequestPacket, code: ErrorCodeInfo): RequestPacket {
  return { ...p, way: 1, code };
}

/**
 * The handler of a Request opening a channel. When this host's database cannot be used (its rule,
 * its row or a new id cannot be read or written) the Request is refused with `l`, as a host that
 * cannot serve now (§9.2 step 2): the requester tries again later.
 */
export async function handleRequest(core: EngineCore, ctx: RequestContext, p: RequestPacket): Promise<void> {
  try {
    await serveRequest(core, ctx, p);
  } catch (err) {
    if (!isDatabaseUnavailable(err)) throw err;
    ctx.logger.warn({ id: String(p.specialId), err: (err as Error).message }, 'transfer request refused: the database is unavailable');
    throw new R66Error(ErrorCode.ServerOverloaded, `${ctx.ownHostId} cannot use its database now: try again later`);
  }
}

async function serveRequest(core: EngineCore, ctx: RequestContext, p: RequestPacket): Promise<void> {
  const { channel, partner } = ctx;
  if (p.way !== 0) throw new R66Error(ErrorCode.IncorrectCommand, 'a Request answer cannot open a conversation');
  if (core.refusesRequests()) {
    // Blocked, shutting down or at the connection limit: the requester retries later (§9.2 step 2).
    await channel.send(answerWith(p, ErrorCode.ServerOverloaded));
    core.notify?.('overloaded', `Rule: ${p.rule} from ${partner.hostId}`, 'new requests blocked, shutting down or at the connection limit');
    return;
  }
  const rule = await core.findRule(p.rule);
  if (rule === undefined) {
    await channel.send(answerWith(p, ErrorCode.QueryRemotelyUnknown));
    return;
  }
  if (!ruleAllowsHost(rule, partner.hostId)) throw new R66Error(ErrorCode.BadAuthent, `Rule ${rule.idRule} is not allowed for ${partner.hostId}`);
  if (p.mode < 1 || p.mode > 8 || isSendMode(rule.mode) !== isSendMode(p.mode)) {
    throw new R66Error(ErrorCode.BadAuthent, `Rule ${rule.idRule} mode ${rule.mode} is not compatible with the requested mode ${p.mode}`);
  }
  const blockSize = negotiateBlockSize(p.blockSize, core.limits.blockSize, core.limits.blockSize);
  let specialId = p.specialId;
  if (specialId === ILLEGAL_SPECIAL_ID) {
    ctx.logger.warn('Request without a transfer id: a new one is assigned');
    specialId = await core.nextTransferId();
  }
  const key = { specialId, requester: partner.hostId, requested: ctx.ownHostId, ownerReq: core.ownerId };
  // A request from this host to itself: one row (the requester's); this side runs beside it.
  const self = partner.hostId === ctx.ownHostId;
  const rk = self ? `${runningKey(key)} self-requested` : runningKey(key);
  if (core.running.has(rk)) {
    await channel.send(answerWith(p, ErrorCode.QueryStillRunning));
    return;
  }
  const isSender = !isSendMode(p.mode);
  const existing = self ? undefined : await core.runner.get(key);
  if (existing && isFinished(existing)) {
    await channel.send(answerWith(p, ErrorCode.QueryAlreadyFinished));
    return;
  }
  let record: TransferRecord;
  if (existing) {
    // Where it resumes: one function (state.ts), capped by the rank the requester offers. The
    // file name as read (resolved, stored-paths) is written back with the move.
    const rank = restartPoint(existing, { isSender, gapRestart: core.limits.gapRestart, offeredRank: p.rank }).rank;
    const fields = { rank, blockSize, fileInfo: p.fileInformation, filename: existing.filename };
    record = Object.assign(existing, fields, await core.runner.move(existing, { kind: 'requestedResume' }, fields));
  } else {
    record = requestedRecord({ key, rule, mode: p.mode, isSender, blockSize, filename: p.filename, fileInfo: p.fileInformation, size: p.length, now: new Date() });
  }
  // A new row is inserted by its first write (before the first pre-task or the answer).
  const row = self ? new RunnerRow(SELF_REQUEST_ROW, record, true) : new RunnerRow(core.runner, record, existing !== undefined);
  const dirs = ruleDirectories(rule, core.directories);
  const session = new TransferSession({ core, row, rule, dirs, channel, partner, isRequester: false, isSender });
  core.running.set(rk, { record, abort: (e) => session.abort(e) });
  core.emitStart(record);
  try {
    const outcome = await (async () => {
      try {
        if (isSender) {
          if (record.globalLastStep < TaskStep.POSTTASK) {
            session.file = await resolveSendFile(core.files, dirs, p.filename);
            record.filename = session.file;
          } else {
            session.file = record.filename;
          }
          await session.preTasks();
          if (session.file !== null && record.globalLastStep < TaskStep.POSTTASK) session.size = await sizeAfterPreTasks(core.files, session.file);
        } else if (existing !== undefined && record.isMoved && !postTasksEnded(record)) {
          // Killed after the move to the final place (its row says so) and before its EndTransfer
          // answer: finished here and answered already finished; nothing is received a second time
          // (decision 0033). Past that answer, runReceiver() takes the sender's EndTransfer.
          return await finishPlacedFile(session, () => channel.send(answerWith(p, ErrorCode.QueryAlreadyFinished)));
        } else {
          session.size = Number(p.length);
          // A new record was created with it (above); a resumed one gets the size announced now.
          if (session.size > 0 && existing !== undefined) record.transferInfo = updateInfoMap(record.transferInfo, { ORIGINALSIZE: p.length });
          await session.preTasks();
          if (record.globalLastStep < TaskStep.POSTTASK) {
            await openWorkFile(session, record.rank > 0 || existing !== undefined);
          }
        }
        session.limit = combineLimits(core.shaper.ownLimit(isSender), Number(p.limit));
        session.shaper = core.shaper.session(isSender, session.limit);
        session.compression = compressionAgreed(core, partner.capabilities.compression, record.fileInfo);
        await row.saveAll();
        if (record.rank > 0) core.logger.info({ id: String(specialId), rank: record.rank, partner: partner.hostId }, 'transfer resumed');
        await channel.send({
          ...p,
          way: 1,
          filename: isSender ? session.wireName() : p.filename,
          blockSize,
          rank: record.rank,
          specialId,
          length: isSender ? BigInt(session.size) : p.length,
          limit: BigInt(session.limit),
          code: ErrorCode.InitOk,
        });
        return isSender ? await runSender(session) : await runReceiver(session);
      } catch (err) {
        return session.fail(err);
      }
    })();
    core.emitEnd(outcome);
  } finally {
    core.running.delete(rk);
  }
}
