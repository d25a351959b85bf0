/**
 * The sender's part after the Request (r66-protocol.md §9.3/§9.4): the data pump, then
 * EndTransfer(way 0) with the global hash, the partner's EndTransfer(way 1), post-tasks,
 * EndRequest(way 0) and its answer.
 *
 * Data path (design.md §5): one buffer per block, the frame itself: the block is read from the
 * file straight behind the frame header, digests are updated on that buffer, the header is written
 * in place, and the next block waits when the socket is above its high-water mark.
 */
import { compress } from 'zstd-napi';
import { ErrorCode } from '../model/error-code.js';
import { TaskStep } from '../model/transfer.js';
import { R66Error } from '../model/r66-error.js';
import { unexpected } from '../net/commands/unexpected.js';
import { createR66Digest, DATA_FRAME_PREFIX_SIZE, digestHex, encodeDataPacketHeader, type Packet } from '../protocol/index.js';
import { createGlobalHash, InlineGlobalHash, type GlobalHash } from './hash/global-hash.js';
import { awaitAnswer } from './answer-wait.js';
import { BlockReader } from './block-reader.js';
import { framePool } from '../protocol/frame-pool.js';
import { RankCheckpoints } from './persistence.js';
import { StreamSource } from './file/stream-file.js';
import { unexpectedPacket, type TransferSession } from './session.js';
import type { TransferOutcome } from './types.js';

/** zstd level of the original's codec (r66-protocol.md §11). */
const ZSTD_LEVEL = 3;
/** Largest block digest: SHA-512; CRC32/ADLER32 octal text is at most 11 bytes. */
export const MAX_DIGEST = 64;

/** Runs the sender's side to the end; returns the outcome (errors included). */
export async function runSender(s: TransferSession): Promise<TransferOutcome> {
  try {
    let hash = '';
    if (s.record.globalLastStep < TaskStep.POSTTASK) {
      // Staged: written with the first RANK save, at the latest by saveRank() below, before EndTransfer.
      await s.row.transferStart(false);
      hash = await pumpData(s);
      await s.row.saveRank();
    }
    // The partner answers EndTransfer once its file is in place and its post-tasks ran.
    await s.row.flush();
    await s.channel.send({ kind: 'endTransfer', request: 7, way: 0, hash });
    // The partner now syncs, moves and records its file: the longest wait of a small transfer.
    s.signals?.waiting?.();
    const answer = await awaitAnswer(s, 'the EndTransfer answer');
    if (answer.kind !== 'endTransfer' || answer.way !== 1) throw unexpected(answer, 'the EndTransfer answer');
    // Post-tasks may move or delete the file: its handle is closed first.
    await s.sourceClosed;
    await s.postTasks();
    // The post-task transitions (staged without tasks) are in RUNNER before EndRequest says done.
    await s.row.flush();
    await s.channel.send({ kind: 'endRequest', code: ErrorCode.CompleteOk, way: 0, info: '' });
    s.signals?.decided?.();
    // The original sender waits at most timeoutcon for the answer, then considers the transfer done.
    try {
      const end = await s.next(s.core.limits.timeoutCon, 'the EndRequest answer');
      if (end.kind === 'error') s.logger.warn({ err: end.message }, 'error after EndRequest ignored: the transfer is complete');
    } catch (err) {
      if (s.abortError) throw err;
    }
    return await s.complete();
  } catch (err) {
    return s.fail(err);
  }
}

/**
 * Sends Data packets from the record's rank to the end of the file; returns the global hash (hex,
 * empty when not computed). Stops at once when the partner sends anything (an Error) or the
 * session is aborted.
 */
async function pumpData(s: TransferSession): Promise<string> {
  const blockSize = s.record.blockSize;
  const room = s.md5 ? MAX_DIGEST : 0;
  const reader = await openReader(s, blockSize, room);
  let globalDigest: GlobalHash | null = null;
  try {
    let rank = s.record.rank;
    const blockDigest = s.md5 ? createR66Digest(s.partner.capabilities.digest) : null;
    // The reader opened early may have hashed its first batch already (BlockReader.hashFirstBatch).
    const ahead = await reader.hashedAhead;
    const identity = s.core.identity;
    globalDigest = ahead ? new InlineGlobalHash(ahead.digest) : identity.globalDigest ? createGlobalHash(identity.digest, s.size, s.core.hashThread) : null;
    const hash = globalDigest;
    let hashedAheadBytes = ahead?.bytes ?? 0;
    let peer: Packet | Error | null = null;
    // One pending receive: any packet from the receiver during the data phase ends it (§9.7).
    const watch = s.next().then(
      (p) => (peer = p),
      (e: unknown) => (peer = e as Error),
    );
    let sent = 0;
    // The frames of one read batch go out in one write (one system call, one wake-up of the
    // receiver), written before any wait: for the disk, the pace of a limit, or a RANK save.
    const unsent: Buffer[] = [];
    // The pool's frames behind `unsent`, given back once the socket wrote them (frame-pool.ts).
    const pooled: Buffer[] = [];
    // The data of the frames in `unsent`, for the global hash once they are on their way.
    const unhashed: Buffer[] = [];
    const flush = async (): Promise<void> => {
      if (unsent.length === 0) return;
      const frames = pooled.splice(0);
      const sending = s.channel.sendFrames(unsent.splice(0), frames.length === 0 ? undefined : () => {
        for (const f of frames) framePool.give(f);
      });
      // The frames are in the socket (or queued by it) now and go back to the pool only after its
      // write callback: hashing them here lets the partner read and hash them at the same time,
      // instead of after this side's hash (SHA-256 runs at about 220 MB/s without SHA-NI).
      for (const data of unhashed.splice(0)) hash?.update(data);
      await sending;
      // A hashing thread behind by a few MiB holds the reading back (hash/off-thread-hash.ts).
      await hash?.room();
    };
    const checkpoints = new RankCheckpoints(async () => {
      await flush();
      await s.row.saveRank();
    }, s.core.rankSaveBlocks);
    for (;;) {
      if (peer !== null) break;
      if (!reader.hasReadBlock) await flush();
      const block = await reader.next();
      if (block === null) break;
      const { frame, bytesRead } = block;
      const data = frame.subarray(DATA_FRAME_PREFIX_SIZE, DATA_FRAME_PREFIX_SIZE + bytesRead);
      let toHash: Buffer | null = data;
      if (hashedAheadBytes > 0) {
        hashedAheadBytes -= bytesRead;
        toHash = null;
      }
      let digest: Buffer | null = null;
      if (blockDigest) {
        blockDigest.update(data);
        digest = blockDigest.digest();
      }
      let out = frame;
      let payload = bytesRead;
      if (s.compression) {
        const packed = compress(data, { compressionLevel: ZSTD_LEVEL });
        out = Buffer.allocUnsafe(DATA_FRAME_PREFIX_SIZE + packed.length + (digest?.length ?? 0));
        packed.copy(out, DATA_FRAME_PREFIX_SIZE);
        payload = packed.length;
        // The block is in `out` now: once in the global hash, its frame is free at once.
        if (toHash) hash?.update(toHash);
        framePool.give(frame);
      }
      if (digest) digest.copy(out, DATA_FRAME_PREFIX_SIZE + payload);
      const size = encodeDataPacketHeader(out, 0, s.channel.remoteId, s.channel.localId, rank, payload, digest?.length ?? 0);
      // Every block is counted (the host's traffic figures); only a block that must wait for a
      // limit sends the batch's earlier frames first. Without a wait they leave together: a
      // shaper exists for every transfer, limited or not.
      const wait = s.shaper?.waitFor(size) ?? 0;
      if (wait > 0) {
        await flush();
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      if (peer !== null) break;
      unsent.push(out.subarray(0, size));
      if (out === frame) {
        pooled.push(frame);
        if (toHash) unhashed.push(toHash);
      }
      rank++;
      sent++;
      s.bytes += bytesRead;
      s.record.rank = rank;
      if (await checkpoints.tick()) s.core.emitProgress(progressOf(s));
      if (bytesRead < blockSize) break;
    }
    // After the partner spoke (an Error) what is left unsent stays unsent.
    if (peer === null) await flush();
    // Let a packet that arrived with the last block be seen before EndTransfer goes out.
    await new Promise((resolve) => setImmediate(resolve));
    if (peer !== null) {
      const p = peer as Packet | Error;
      throw p instanceof Error ? p : unexpectedPacket(s, p, 'the end of the data');
    }
    // The watcher still waits for the next packet: hand it back to the conversation.
    s.pendingPacket = watch.then(() => {
      const p = peer as Packet | Error | null;
      if (p === null) throw new R66Error(ErrorCode.Disconnection, 'channel ended');
      if (p instanceof Error) throw p;
      return p;
    });
    // Not consumed when the transfer fails before its next receive (a row write refused: the
    // database went away): the channel's close then rejects it, which must not be an unhandled
    // rejection (issue 32: the process exited on it). next() still sees the rejection.
    s.pendingPacket.catch(() => undefined);
    if (sent === 0 || hash === null) return '';
    return digestHex(await hash.digest());
  } finally {
    // A hash not finished (a failed transfer) is freed: a hashing thread may hold it.
    globalDigest?.discard();
    // Closed once a read still in flight settled; the post-tasks wait for it, the EndTransfer does not.
    s.sourceClosed = reader.close();
  }
}

/** The reader the requester opened while it waited for the answer, when it still fits; else a new one. */
async function openReader(s: TransferSession, blockSize: number, room: number): Promise<BlockReader> {
  const early = s.earlyReader;
  s.earlyReader = null;
  const position = s.record.rank * blockSize;
  if (early !== null) {
    const reader = await early.catch(() => null);
    if (reader !== null && reader.blockSize === blockSize && reader.room === room && reader.startPosition === position && s.through === null) return reader;
    await reader?.close();
  }
  const source = s.through !== null && 'source' in s.through ? s.through.source : null;
  if (s.file === null && source === null) throw new R66Error(ErrorCode.FileNotFound, 'no file to send');
  if (source !== null) return new BlockReader(new StreamSource(source), blockSize, room, position, -1);
  return BlockReader.open(s.core.files, s.file as string, blockSize, room, position, s.size);
}

export function progressOf(s: TransferSession): import('./types.js').TransferProgress {
  const r = s.record;
  return { ref: { specialId: r.specialId, requester: r.requester, requested: r.requested }, rank: r.rank, blockSize: r.blockSize, bytes: s.bytes, size: s.size, isSender: s.isSender };
}
