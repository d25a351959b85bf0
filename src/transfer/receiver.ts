/**
 * The receiver's part after the Request (r66-protocol.md §9.3/§9.4): Data packets written at their
 * block's position in the work file, rank and digest checks, change notifications (§9.5), then at
 * EndTransfer(way 0) the size and global hash checks, the move to the receive directory, the
 * post-tasks, EndTransfer(way 1), and the final EndRequest. Its file work goes through the engine's
 * TransferFileSystem (`s.core.files`, file/storage.ts) and placement.ts.
 */
import path from 'node:path';
import { decompress } from 'zstd-napi';
import { ErrorCode } from '../model/error-code.js';
import { TaskStep, type TransferRecord } from '../model/transfer.js';
import { R66Error } from '../model/r66-error.js';
import { unexpected } from '../net/commands/unexpected.js';
import {
  createR66Digest, decodeValidCommand, digestHex, errorPacket, PacketType, sameHexDigest, type DigestAlgorithm, type Packet, type R66Digest,
} from '../protocol/index.js';
import { framePool } from '../protocol/frame-pool.js';
import { awaitAnswer } from './answer-wait.js';
import { crashPointForTests } from './crash-point.js';
import { wantsDirectWrites } from './file/direct-writer.js';
import { createGlobalHash, type GlobalHash } from './hash/global-hash.js';
import type { TransferStorage } from './file/storage.js';
import { StreamSink } from './file/stream-file.js';
import { WRITE_BATCH_BYTES, WriteWindow } from './file/write-window.js';
import { RankCheckpoints } from './persistence.js';
import { createWorkFile, finalPath, moveToFinal, removeQuietly, temporaryName } from './placement.js';
import { progressOf } from './sender.js';
import { unexpectedPacket, type TransferSession } from './session.js';
import type { TransferOutcome } from './types.js';

/** Rewinds to a smaller rank tolerated per transfer (r66-protocol.md §9.4). */
const MAX_REWINDS = 2;
/** Blocks' bytes the data loop queues for writing before it hashes them, at most (see receiveData). */
const HASH_BATCH_BYTES = 256 * 1024;

/**
 * The receiver's work file before the data phase: an earlier attempt's (`earlier`: the record's
 * file) is reused or replaced by prepareWorkFile(); a first attempt's is created by
 * startWorkFile(), while the row is written and the answer or the first blocks are on their way.
 */
export async function openWorkFile(s: TransferSession, earlier: boolean): Promise<void> {
  s.file = earlier ? s.record.filename : null;
  if (s.file === null) await startWorkFile(s);
  else await prepareWorkFile(s);
}

/**
 * Creates (rank 0) or reopens (restart) the work file. On a restart the rank is lowered to what
 * the file really holds (§9.8). Fails here when the file cannot be created.
 */
export async function prepareWorkFile(s: TransferSession): Promise<void> {
  const r = s.record;
  let existing: number | undefined;
  if (s.file !== null && s.file.endsWith('.r66')) existing = await s.core.files.fileSize(s.file);
  if (existing === undefined || r.rank === 0) {
    // An earlier attempt's work file that cannot be resumed goes (only from the work directory:
    // `file` may also be a name the partner gave, which is never this host's to delete).
    if (s.file !== null && s.file.endsWith('.r66') && path.dirname(s.file) === s.dirs.work) await removeQuietly(s.core.files, s.file);
    s.file = null;
    await startWorkFile(s);
    // Its error, if any, here rather than in the data loop.
    await s.workHandle;
  } else {
    const held = Math.floor(existing / r.blockSize);
    if (held < r.rank) r.rank = Math.max(0, held - s.core.limits.gapRestart) || (held > 0 ? 1 : 0);
    r.filename = s.file ?? r.filename;
  }
}

/**
 * Starts creating a new work file for a transfer at rank 0 that has none yet (`s.file` null) and
 * names it in the record, without waiting for the creation: the requested host writes its row and
 * sends the Request answer meanwhile. Creating a file costs 0.05 ms on a quiet ext4 and 0.5-1 ms
 * on one where many files were just deleted (docs/performance.md): on the answer's path, it was
 * the largest wait of a small transfer on the receiving host. receiveData() takes the handle
 * before the first block, and a creation that failed fails the transfer there with the code
 * prepareWorkFile() gives (the partner is told by an Error packet while it sends its data).
 */
export async function startWorkFile(s: TransferSession): Promise<void> {
  const r = s.record;
  // A replaced handle (a change notification renames the work file) is closed first.
  await s.closeWorkHandle();
  const file = path.join(s.dirs.work, temporaryName(r.specialId, r.originalName || r.filename));
  s.file = file;
  r.filename = file;
  r.rank = 0;
  // A small file is written in one go once all of it is there (WriteWindow's `hold`), through a
  // handle opened with O_DSYNC: that write is its sync, one thread-pool round trip and one wait on
  // the EndTransfer answer's path fewer than a write then an fdatasync (docs/performance.md). From
  // DIRECT_MIN_BYTES on, a large one is written around the page cache (file/direct-writer.ts); the
  // synced flag then only makes the writes the direct writer declines synced.
  const opts = {
    synced: s.size > 0 && s.size <= SYNCED_WRITE_MAX_BYTES,
    direct: s.core.directWrites && wantsDirectWrites(true, s.size, r.blockSize),
  };
  const handle = createWorkFile(s.core.files, file, opts).catch((err: NodeJS.ErrnoException) => {
    throw new R66Error(err.code === 'ENOENT' ? ErrorCode.FileNotFound : ErrorCode.FileNotAllowed, `cannot create the work file ${file}: ${err.message}`);
  });
  handle.catch(() => undefined);
  s.workHandle = handle;
}

/** The digest the receiver checks the global hash with (r66-protocol.md §10.3), or null. */
function globalDigestFor(s: TransferSession): DigestAlgorithm | null {
  const own = s.core.identity;
  if (!own.globalDigest) return null;
  const partner = s.partner.capabilities;
  if (partner.finalHash && partner.digest !== own.digest) return partner.digest;
  if (s.core.limits.localDigest && s.record.rank === 0) return own.digest;
  return null;
}

export async function runReceiver(s: TransferSession): Promise<TransferOutcome> {
  try {
    if (s.record.globalLastStep < TaskStep.POSTTASK) {
      // Staged: written with the first checkpoint or at EndTransfer (RunnerRow.transferStart()).
      await s.row.transferStart(false);
      await receiveData(s);
    } else {
      // Restart after the data phase: the sender sends EndTransfer at once (§9.4).
      const p = await awaitAnswer(s, 'EndTransfer');
      // Data instead: a sender that never got this host's EndTransfer(way 1) resumes at the end
      // rank and sends none, but one whose saved rank is short of the end does. The file is in
      // place: the transfer is finished here and the sender told so (QueryAlreadyFinished
      // completes it, §9.7; decision 0033).
      if (p.kind === 'data' && s.record.isMoved) return await finishPlacedInsteadOfData(s);
      if (p.kind !== 'endTransfer' || p.way !== 0) throw unexpected(p, 'EndTransfer');
      await s.row.flush();
      await s.channel.send({ kind: 'endTransfer', request: p.request, way: 1, hash: p.hash });
    }
    const end = await awaitAnswer(s, 'EndRequest');
    if (end.kind !== 'endRequest' || end.way !== 0) throw unexpected(end, 'EndRequest');
    const outcome = await s.complete();
    await s.channel.send({ kind: 'endRequest', code: end.code, way: 1, info: '' }).catch(() => undefined);
    return outcome;
  } catch (err) {
    return s.fail(err);
  }
}

async function receiveData(s: TransferSession): Promise<void> {
  const sink = s.through !== null && 'sink' in s.through ? new StreamSink(s.through.sink) : null;
  if (s.file === null && sink === null) throw new R66Error(ErrorCode.Internal, 'no work file');
  const pending = s.workHandle;
  s.workHandle = null;
  // A creation still running (startWorkFile()) ends here; its failure fails the transfer.
  const held = pending === null ? null : await pending;
  if (sink && held) await held.close();
  // A work file created for this attempt holds exactly what the loop writes: its size needs no stat.
  const fresh = held !== null && sink === null;
  // Created as startWorkFile() chose (direct or synced writes), else an earlier attempt's, reopened.
  const storage: TransferStorage = sink ?? held ?? await s.core.files.openForWriting(s.file as string);
  let closed = false;
  let writes: WriteWindow | undefined;
  // The sync and close started as soon as the announced size is on its way to disk (see below):
  // `synced` is the data on disk, `finishing` the close after it.
  let synced: Promise<void> | null = null;
  let finishing: Promise<void> | null = null;
  // The checkpoint in progress, if any (see below), and the first one that failed: it fails the
  // transfer at the next block or at EndTransfer.
  let checkpoint: Promise<void> | null = null;
  let checkpointFailure: Error | null = null;
  // Freed in the end, whatever happened (a hashing thread holds an unfinished one).
  let globalDigest: GlobalHash | null = null;
  try {
    const r = s.record;
    const blockSize = r.blockSize;
    let expected = r.rank;
    let rewinds = 0;
    let highest = 0;
    const blockAlgo = s.md5 ? s.partner.capabilities.digest : null;
    const blockDigest: R66Digest | null = blockAlgo ? createR66Digest(blockAlgo) : null;
    const globalAlgo = globalDigestFor(s);
    globalDigest = globalAlgo ? createGlobalHash(globalAlgo, s.size, s.core.hashThread) : null;
    const hash = globalDigest;
    // Positional writes are independent: a few stay in flight while the next packets are read. A
    // small new file is written in one go once all of it is there (WriteWindow's hold): an early
    // write would be a sync of its own through an O_DSYNC handle, and a device write of its own
    // around the page cache (direct writes: every block of a 250 KB file became a write of its own).
    const whole = storage.syncsEachWrite || (fresh && s.size > 0 && s.size <= SYNCED_WRITE_MAX_BYTES);
    writes = new WriteWindow(storage, whole);
    const window = writes;
    // A checkpoint runs beside the data loop: the rank of the blocks queued when it is taken is
    // saved once they are written and synced, so a saved rank never points past data that is not
    // on disk. Awaited in the loop, the sync of 64 MiB stopped the reading for 40-55 ms each time,
    // a fifth of a large transfer's time (docs/performance.md). One at a time: a checkpoint due
    // while the last one still runs is skipped.
    const checkpoints = new RankCheckpoints(async () => {
      if (checkpoint !== null) return;
      const rank = r.rank;
      const running: Promise<void> = window.written()
        .then(() => storage.sync())
        .then(() => s.row.saveRankAt(rank))
        .catch((err: unknown) => {
          checkpointFailure ??= err as Error;
        })
        .finally(() => {
          if (checkpoint === running) checkpoint = null;
        });
      checkpoint = running;
    }, s.core.rankSaveBlocks);
    // Blocks queued for writing but not yet in the global hash. A file written in pieces hashes
    // them once HASH_BATCH_BYTES wait, once the whole announced size is there (after the sync was
    // started), or before any packet that is not Data: hashed on arrival (SHA-256 runs at about
    // 220 MB/s without SHA-NI, 0.3 ms per 64 KiB block), each block held back the writing of the
    // next. Between two blocks the thread takes what the thread pool finished, so a write's
    // completion can start the next write or the sync while the rest is hashed.
    // A file written whole has no write to hold back before its last block: each block is hashed
    // as it arrives, still in the processor's cache. Hashed later, with 100 transfers in flight,
    // other transfers' data had pushed it out: SHA-256 ran at 1.1 GB/s instead of 1.7 (SHA-NI).
    // The last block is hashed after the write and sync were started, as before.
    const unhashed: UnhashedBlock[] = [];
    let unhashedBytes = 0;
    const hashQueued = async (): Promise<void> => {
      window.start();
      const blocks = unhashed.splice(0);
      unhashedBytes = 0;
      for (let i = 0; i < blocks.length; i++) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        const block = blocks[i] as UnhashedBlock;
        hash?.update(block.data);
        block.hashed();
      }
      // A hashing thread behind by a few MiB holds the reading back (hash/off-thread-hash.ts).
      await hash?.room();
    };
    for (;;) {
      // Nothing else has arrived: what is queued is written while the loop waits.
      if (s.channel.queuedPackets === 0) window.start();
      const p = await awaitAnswer(s, 'Data');
      if (p.kind !== 'data') await hashQueued();
      if (p.kind === 'data') {
        if (p.rank !== expected) {
          if (p.rank < expected && rewinds < MAX_REWINDS) {
            rewinds++;
            expected = p.rank;
          } else {
            throw new R66Error(ErrorCode.TransferError, `Bad Rank in transmission: ${p.rank} instead of ${expected}`);
          }
        }
        if (s.size > 0 && blockSize * (expected - 1) > s.size) {
          throw new R66Error(ErrorCode.TransferError, `Too much data transferred: rank ${expected} for a size of ${s.size}`);
        }
        if (finishing !== null) throw new R66Error(ErrorCode.TransferError, `Too much data transferred: rank ${expected} after the whole size of ${s.size}`);
        const data = s.compression ? decompressBlock(p.data) : p.data;
        if (blockDigest) {
          blockDigest.update(data);
          const d = blockDigest.digest();
          if (p.digest.length === 0 || !d.equals(p.digest)) {
            throw new R66Error(ErrorCode.MD5Error, `Transfer in error due to bad Hash on data packet (${blockAlgo!.wireName})`);
          }
        }
        // The packet's frame goes back to the pool once nothing reads it: at once when the block was
        // decompressed, else once written to the file (a through sink may keep it) and hashed.
        if (data !== p.data) framePool.giveBack(p.data);
        const done = data === p.data && sink === null ? afterAll(hash ? 2 : 1, () => framePool.giveBack(data)) : noop;
        const position = expected * blockSize;
        const queued = window.write(data, position, done);
        // Awaited below: where the loop waits for room in the write queue.
        queued.catch(() => undefined);
        if (hash) {
          unhashed.push({ data, hashed: done });
          unhashedBytes += data.length;
        }
        highest = Math.max(highest, position + data.length);
        expected++;
        s.bytes += data.length;
        r.rank = expected;
        if (s.shaper) await pauseReading(s, p.data.length);
        if (await checkpoints.tick()) s.core.emitProgress(progressOf(s));
        if (checkpointFailure) throw checkpointFailure;
        // The whole announced size is written (or being written) to a file of this attempt: its sync
        // and close run now, while the last blocks are hashed and the sender sends EndTransfer.
        if (fresh && s.size > 0 && highest >= s.size) {
          const end = highest;
          synced = Promise.all([window.drain(), checkpoint]).then(() => storage.sync(end));
          // Closed whether the sync succeeded or not (a full disk fails the drain): never left to the GC.
          finishing = synced.then(() => storage.close(), (err: unknown) => storage.abort(err as Error).then(() => Promise.reject(err as Error)));
          finishing.catch(() => undefined);
          closed = true;
        }
        if (whole || unhashedBytes >= HASH_BATCH_BYTES || finishing !== null) await hashQueued();
        await queued;
        continue;
      }
      if (p.kind === 'endTransfer' && p.way === 0) {
        // A checkpoint's rank save must not land after the final one.
        await checkpoint;
        if (checkpointFailure) throw checkpointFailure;
        let closing: Promise<void>;
        let length: number;
        if (synced !== null && finishing !== null) {
          // Like below, the close goes on beside the checks and the rename.
          await synced;
          closing = finishing;
          length = highest;
        } else {
          await window.drain();
          await storage.sync(highest);
          // The size: what this loop wrote to a file of its own, else from the storage (a reopened
          // work file may hold more than the restart rewrote); endOfData() needs no stat of the path.
          length = fresh ? highest : await storage.size();
          if (highest > 0 && length > highest) {
            await storage.truncate(highest);
            length = highest;
          }
          // The close goes on while the checks and the rename run (renaming an open file is fine);
          // it has ended, and its error counts, before the answer goes out.
          closing = storage.close();
          closing.catch(() => undefined);
          closed = true;
        }
        if (sink) s.throughWritten = length = await sink.size();
        // RANK, the move and the post-task transitions go in one write before EndTransfer(way 1);
        // a post-task list writes them before its first task runs (RunnerRow.stage()).
        s.row.stage({ rank: r.rank });
        try {
          // endOfData() waits for the close before any post-task, and fails with its error.
          await endOfData(s, p.hash, hash, globalAlgo, length, closing);
        } finally {
          await closing.catch(() => undefined);
        }
        await s.row.flush();
        crashPointForTests('beforeEndTransferAnswer');
        await s.channel.send({ kind: 'endTransfer', request: p.request, way: 1, hash: p.hash });
        return;
      }
      if ((p.kind === 'valid' && p.subType === PacketType.REQUEST) || (p.kind === 'jsonCommand' && p.subType === PacketType.REQUEST)) {
        await applyChange(s, p);
        continue;
      }
      throw unexpectedPacket(s, p, 'Data');
    }
  } finally {
    globalDigest?.discard();
    // An early sync and close that failed, or a data phase that failed after it started, and a
    // checkpoint still running: settled before the handle is closed.
    await finishing?.catch(() => undefined);
    await checkpoint;
    if (!closed) {
      await writes?.drain().catch(() => undefined);
      // A through sink is destroyed, not ended; a work file is kept for a resume.
      await storage.abort(new Error('the transfer ended in error before all its data arrived'));
    }
  }
}

/** Checks at EndTransfer (§9.4 steps 2-4), then moves the file and runs the post-tasks. */
async function endOfData(s: TransferSession, hash: string, globalDigest: GlobalHash | null, algo: DigestAlgorithm | null, length: number, closing: Promise<void>): Promise<void> {
  const r = s.record;
  const file = s.file as string;
  if (s.size > 0 && (length !== s.size || length === 0)) {
    r.rank = 0;
    throw new R66Error(ErrorCode.TransferError, `Final size in error, transfer in error and rank should be reset to 0: size differs from ${s.size} to ${length} at rank ${r.rank}`);
  }
  if (hash.length > 0 && globalDigest && algo) {
    const mine = digestHex(await globalDigest.digest());
    if (!sameHexDigest(mine, hash)) {
      r.rank = 0;
      throw new R66Error(ErrorCode.MD5Error, `Global Hash in error, transfer in error and rank should be reset to 0 (using ${algo.wireName})`);
    }
  }
  if (s.through === null) {
    const target = finalPath(s.dirs, file);
    // Written BEFORE the rename (decision 0033): a host killed after the rename but before a later
    // write must know at its restart that the file is placed, and under which name, or the
    // partner's restart of the same id would receive it a second time under a second name.
    await s.row.set({ filename: target, isMoved: true });
    try {
      await moveToFinal(s.core.files, file, target);
    } catch (err) {
      // Not placed after all: the row names the work file again (written with the error).
      s.row.stage({ filename: file, isMoved: false });
      throw new R66Error(ErrorCode.FinalOp, `Error while finalizing transfer: ${(err as Error).message}`);
    }
    s.file = target;
    crashPointForTests('afterMove');
  }
  // Post-tasks see a closed file: only the checks and the rename run beside the close.
  await closing;
  await finalizingPostTasks(s);
}

/** The receiver's post-tasks; a failure is a finalizing error (§9.4 step 4). */
async function finalizingPostTasks(s: TransferSession): Promise<void> {
  try {
    await s.postTasks();
  } catch (err) {
    const e = err as R66Error;
    throw new R66Error(e.code ?? ErrorCode.FinalOp, `Error while finalizing transfer: ${e.message}`);
  }
}

/**
 * A restart of a transfer whose file this host already placed (its row says so, written before the
 * move by endOfData()): nothing is received again. A move the host was killed before is done now,
 * the post-tasks run unless the row says they ended, the row becomes DONE, and only then is the
 * partner answered QueryAlreadyFinished (`answer`), which completes its side (r66-protocol.md §9.7,
 * §9.8). Without this, the restart received the whole file again under a new temporary name.
 */
export async function finishPlacedFile(s: TransferSession, answer: () => Promise<void>): Promise<TransferOutcome> {
  try {
    const r = s.record;
    const target = r.filename;
    s.file = target;
    const work = path.join(s.dirs.work, `${path.basename(target)}.r66`);
    const files = s.core.files;
    if ((await files.fileSize(work)) !== undefined && (await files.fileSize(target)) === undefined) await moveToFinal(files, work, target);
    if (!postTasksEnded(r)) await finalizingPostTasks(s);
    const outcome = await s.complete();
    await answer();
    s.logger.info({ id: String(r.specialId), partner: s.partner.hostId }, 'restart of a transfer whose file was already placed: answered already finished');
    return outcome;
  } catch (err) {
    return s.fail(err);
  }
}

/**
 * finishPlacedFile() once the sender is sending, or about to send, its data: the answer is an Error
 * QueryAlreadyFinished, which stops its data and completes its side (§9.7).
 */
export function finishPlacedInsteadOfData(s: TransferSession): Promise<TransferOutcome> {
  return finishPlacedFile(s, () => s.channel.send(errorPacket('Transfer already finished: the file is in place', ErrorCode.QueryAlreadyFinished)));
}

/**
 * True when the row says this receiver's post-tasks ended: written just before its EndTransfer(way 1),
 * so the sender may have gone on to its own post-tasks and will restart with EndTransfer.
 */
export function postTasksEnded(r: Pick<TransferRecord, 'globalLastStep' | 'stepStatus'>): boolean {
  return r.globalLastStep === TaskStep.POSTTASK && r.stepStatus === ErrorCode.PostProcessingOk;
}

/** A change notification from the sender (§9.5): new name, size and information. */
async function applyChange(s: TransferSession, p: Packet): Promise<void> {
  let filename: string;
  let size: bigint;
  let info: string | null;
  if (p.kind === 'valid') {
    const c = decodeValidCommand(p);
    if (c.cmd !== 'change') return;
    ({ filename, size, fileInformation: info } = c);
  } else if (p.kind === 'jsonCommand' && p.command?.jsonClass === 'RequestJsonPacket') {
    filename = p.command.filename ?? '';
    size = p.command.filesize;
    info = p.command.fileInfo;
  } else {
    return;
  }
  const r = s.record;
  if (size > 0n) s.size = Number(size);
  if (info !== null && info !== r.fileInfo) r.fileInfo = info;
  if (filename.length > 0 && r.rank === 0 && filename !== r.originalName) {
    r.originalName = filename;
    // The data loop keeps writing through the handle it opened: the work file is renamed to the
    // new temporary name, never replaced (a new empty file would lose every block received).
    const previous = s.file;
    s.file = null;
    await prepareWorkFile(s);
    // The new file is only a name to rename onto: its handle is not the loop's.
    await s.closeWorkHandle();
    if (previous !== null && s.file !== null) await s.core.files.rename(previous, s.file);
  }
  await s.row.saveAll();
}

function decompressBlock(data: Buffer): Buffer {
  try {
    return decompress(data);
  } catch (err) {
    throw new R66Error(ErrorCode.TransferError, `Data block does not decompress: ${(err as Error).message}`);
  }
}

/** Largest announced size written in one go through an O_DSYNC handle (startWorkFile()). */
const SYNCED_WRITE_MAX_BYTES = WRITE_BATCH_BYTES;

function noop(): void {}

/** A function that runs `then` on its `count`-th call. */
function afterAll(count: number, then: () => void): () => void {
  let left = count;
  return () => {
    if (--left === 0) then();
  };
}

/** A received block waiting for the global hash; `hashed` is called once it is in. */
interface UnhashedBlock {
  data: Buffer;
  hashed: () => void;
}

/**
 * Read shaping (bandwidth.md §6.1): when the received bytes run ahead of the limit, this transfer
 * stops reading its channel for the wait. The socket itself is not paused, so other transfers
 * sharing the connection go on; the channel's backlog limit pauses the socket only if the sender
 * does not keep to the negotiated limit (it paces its writes at that same limit, §5).
 */
async function pauseReading(s: TransferSession, bytes: number): Promise<void> {
  const wait = s.shaper?.waitFor(bytes) ?? 0;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
