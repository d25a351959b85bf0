/**
 * The sender's part after the Request (r66-protocol.md §9.3/§9.4): the data pump, then
 * EndTransfer(way 0) with the global hash, the partner's EndTransfer(way 1), post-tasks,
 * EndRequest(way 0) and its answer.
 *
 * Data path (design.md §5): one buffer per block, the frame itself: the block is read from the
 * file straight behind the frame header, digests are updated on that buffer, the header is written
 * in place, and the next block waits when the socket is above its high-water mark.
 */
import { open } from 'node:fs/promises';
import { compress } from 'zstd-napi';
import { ErrorCode } from '../model/error-code.js';
import { TaskStep } from '../model/transfer.js';
import { R66Error } from '../net/errors.js';
import { unexpected } from '../net/commands/unexpected.js';
import { createR66Digest, DATA_FRAME_PREFIX_SIZE, digestHex, encodeDataPacketHeader, type Packet } from '../protocol/index.js';
import { awaitAnswer } from './answer-wait.js';
import { RankCheckpoints } from './persistence.js';
import { throughSourceHandle } from './through.js';
import { unexpectedPacket, type TransferSession } from './session.js';
import type { TransferOutcome } from './types.js';

/** zstd level of the original's codec (r66-protocol.md §11). */
const ZSTD_LEVEL = 3;
/** Largest block digest: SHA-512; CRC32/ADLER32 octal text is at most 11 bytes. */
const MAX_DIGEST = 64;
/** Bytes read per readv: four 64 KiB blocks (a 250 KB file in one read). */
const READ_BATCH_BYTES = 256 * 1024;

/** Frames filled by one readv; `full` when the file may go on after them. */
interface ReadBatch {
  frames: Buffer[];
  bytesRead: number;
  full: boolean;
}

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
    const answer = await awaitAnswer(s, 'the EndTransfer answer');
    if (answer.kind !== 'endTransfer' || answer.way !== 1) throw unexpected(answer, 'the EndTransfer answer');
    await s.postTasks();
    // The post-task transitions (staged without tasks) are in RUNNER before EndRequest says done.
    await s.row.flush();
    await s.channel.send({ kind: 'endRequest', code: ErrorCode.CompleteOk, way: 0, info: '' });
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
  const file = s.file;
  const source = s.through !== null && 'source' in s.through ? s.through.source : null;
  if (file === null && source === null) throw new R66Error('no file to send', ErrorCode.FileNotFound);
  const fh = source !== null ? throughSourceHandle(source) : await open(file as string, 'r');
  const pending: { current: Promise<unknown> | null } = { current: null };
  try {
    const blockSize = s.record.blockSize;
    let rank = s.record.rank;
    let position = rank * blockSize;
    const blockDigest = s.md5 ? createR66Digest(s.partner.capabilities.digest) : null;
    const globalDigest = s.core.identity.globalDigest ? createR66Digest(s.core.identity.digest) : null;
    const room = blockDigest ? MAX_DIGEST : 0;
    let peer: Packet | Error | null = null;
    // One pending receive: any packet from the receiver during the data phase ends it (§9.7).
    const watch = s.next().then(
      (p) => (peer = p),
      (e: unknown) => (peer = e as Error),
    );
    const checkpoints = new RankCheckpoints(() => s.row.saveRank(), s.core.rankSaveBlocks);
    let sent = 0;
    // Blocks are read a batch at a time (one readv into the frames, one thread-pool round trip
    // for a small file), and the next batch while the current one goes out (disk and socket overlap).
    const perBatch = Math.max(1, Math.floor(READ_BATCH_BYTES / blockSize));
    const readBatch = async (at: number): Promise<ReadBatch> => {
      const left = s.size > at ? Math.ceil((s.size - at) / blockSize) : 1;
      const frames = Array.from({ length: Math.min(perBatch, left) }, () => Buffer.allocUnsafe(DATA_FRAME_PREFIX_SIZE + blockSize + room));
      const { bytesRead } = await fh.readv(frames.map((f) => f.subarray(DATA_FRAME_PREFIX_SIZE, DATA_FRAME_PREFIX_SIZE + blockSize)), at);
      return { frames, bytesRead, full: bytesRead === frames.length * blockSize };
    };
    let nextRead: Promise<ReadBatch> | null = readBatch(position);
    pending.current = nextRead;
    let batch: ReadBatch | null = null;
    let index = 0;
    for (;;) {
      if (peer !== null) break;
      if (batch === null || index >= batch.frames.length || index * blockSize >= batch.bytesRead) {
        if (batch !== null && !batch.full) break;
        if (nextRead === null) break;
        batch = await nextRead;
        index = 0;
        nextRead = batch.full ? readBatch(position + batch.bytesRead) : null;
        pending.current = nextRead;
        if (batch.bytesRead === 0) break;
      }
      const frame = batch.frames[index] as Buffer;
      const bytesRead = Math.min(blockSize, batch.bytesRead - index * blockSize);
      index++;
      const data = frame.subarray(DATA_FRAME_PREFIX_SIZE, DATA_FRAME_PREFIX_SIZE + bytesRead);
      globalDigest?.update(data);
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
      }
      if (digest) digest.copy(out, DATA_FRAME_PREFIX_SIZE + payload);
      const size = encodeDataPacketHeader(out, 0, s.channel.remoteId, s.channel.localId, rank, payload, digest?.length ?? 0);
      if (s.shaper) await s.shaper.pace(size);
      if (peer !== null) break;
      await s.channel.sendFrame(out.subarray(0, size));
      rank++;
      position += bytesRead;
      sent++;
      s.bytes += bytesRead;
      s.record.rank = rank;
      if (await checkpoints.tick()) s.core.emitProgress(progressOf(s));
      if (bytesRead < blockSize) break;
    }
    // Let a packet that arrived with the last block be seen before EndTransfer goes out.
    await new Promise((resolve) => setImmediate(resolve));
    if (peer !== null) {
      const p = peer as Packet | Error;
      throw p instanceof Error ? p : unexpectedPacket(s, p, 'the end of the data');
    }
    // The watcher still waits for the next packet: hand it back to the conversation.
    s.pendingPacket = watch.then(() => {
      const p = peer as Packet | Error | null;
      if (p === null) throw new R66Error('channel ended', ErrorCode.Disconnection);
      if (p instanceof Error) throw p;
      return p;
    });
    return sent > 0 && globalDigest ? digestHex(globalDigest.digest()) : '';
  } finally {
    // A read still in flight (the transfer ended early) must settle before the file closes.
    await pending.current?.catch(() => undefined);
    await fh.close();
  }
}

export function progressOf(s: TransferSession): import('./types.js').TransferProgress {
  const r = s.record;
  return { ref: { specialId: r.specialId, requester: r.requester, requested: r.requested }, rank: r.rank, blockSize: r.blockSize, bytes: s.bytes, size: s.size, isSender: s.isSender };
}
