import { DEFAULT_MAX_FRAME_LENGTH, FRAME_HEADER_SIZE, MIN_FRAME_LENGTH } from './constants.js';
import { frameError } from './errors.js';
import { framePool } from './frame-pool.js';

/**
 * One network frame (r66-protocol.md §2): the ids of the two local channels, the packet type code
 * and the local packet bytes that follow (envelope, see envelope.ts).
 */
export interface NetworkFrame {
  /** Local channel id of the receiver of this frame (NOCHANNEL for a new channel). */
  dstId: number;
  /** Local channel id of the sender of this frame. */
  srcId: number;
  /** Packet type code (equal to the local packet's type byte). */
  code: number;
  /** The local packet: a view into the received bytes, not a copy. */
  localPacket: Buffer;
}

/** Options of the frame decoders. */
export interface FrameDecoderOptions {
  /**
   * Largest frameLength accepted (bytes after the length field). A larger declared length is refused
   * before any byte of it is buffered. Default DEFAULT_MAX_FRAME_LENGTH.
   */
  maxFrameLength?: number;
}

function checkedLength(frameLength: number, max: number): number {
  if (frameLength < MIN_FRAME_LENGTH) throw frameError(`frame length ${frameLength} is below the minimum ${MIN_FRAME_LENGTH}`);
  if (frameLength > max) throw frameError(`frame length ${frameLength} exceeds the limit ${max}`);
  return frameLength;
}

function frameAt(bytes: Buffer, offset: number, total: number): NetworkFrame {
  return {
    dstId: bytes.readInt32BE(offset + 4),
    srcId: bytes.readInt32BE(offset + 8),
    code: bytes[offset + 12] as number,
    localPacket: bytes.subarray(offset + FRAME_HEADER_SIZE, offset + total),
  };
}

/**
 * Decodes the frame starting at `offset` of `bytes`, if it is complete.
 * Returns the frame (its localPacket a view into `bytes`) and the offset just after it, or null
 * when more bytes are needed. Throws a fatal ProtocolError for a length below 9 or above the limit,
 * as soon as the 4 length bytes are present.
 */
export function decodeNetworkFrame(
  bytes: Buffer,
  offset = 0,
  options: FrameDecoderOptions = {},
): { frame: NetworkFrame; next: number } | null {
  if (bytes.length - offset < 4) return null;
  const total = 4 + checkedLength(bytes.readInt32BE(offset), options.maxFrameLength ?? DEFAULT_MAX_FRAME_LENGTH);
  if (bytes.length - offset < total) return null;
  return { frame: frameAt(bytes, offset, total), next: offset + total };
}

/** Writes the 13-byte frame header at `offset` of `into` for a local packet of `localLength` bytes. */
export function writeFrameHeader(into: Buffer, offset: number, dstId: number, srcId: number, code: number, localLength: number): void {
  into.writeInt32BE(localLength + MIN_FRAME_LENGTH, offset);
  into.writeInt32BE(dstId | 0, offset + 4);
  into.writeInt32BE(srcId | 0, offset + 8);
  into[offset + 12] = code & 0xff;
}

/** Encodes one frame around already encoded local packet bytes (one copy of them). */
export function encodeNetworkFrame(dstId: number, srcId: number, code: number, localPacket: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_SIZE + localPacket.length);
  writeFrameHeader(out, 0, dstId, srcId, code, localPacket.length);
  out.set(localPacket, FRAME_HEADER_SIZE);
  return out;
}

/** Frames of at least this size are copied into pooled buffers; smaller ones into Node's small-buffer pool. */
const POOLED_FRAME_MIN = 16 * 1024;
/**
 * Largest frame whose buffer is taken as soon as its length is known. A bigger one (a block size
 * above 1 MiB, or a peer announcing the maximum and sending nothing) is kept as copies of what
 * arrived, joined at its end: announcing a length must not make this host allocate it.
 */
const WHOLE_FRAME_MAX = 1024 * 1024 + 64 * 1024;

function ownedBuffer(size: number): Buffer {
  return size >= POOLED_FRAME_MIN ? framePool.takeReceived(size) : Buffer.allocUnsafe(size);
}

/**
 * Incremental frame splitter for a TCP byte stream. Feed it the chunks as they arrive; it returns
 * the complete frames. A chunk is read only during push(): a socket reading into one reused buffer
 * (net/socket-reads.ts) overwrites it with the next read. So every frame is copied out, once, into
 * a buffer of its own; frames of a data block into pooled buffers (framePool.takeReceived()), which
 * the receiver gives back once the block is written and hashed: a large transfer then allocates no
 * memory per block. (With a new 64 KiB buffer per read held by its blocks, a 1 GiB file made V8
 * collect its young generation every 32 MB for "external memory pressure", and at times run a full
 * mark-compact every 60 ms; docs/performance.md, "Ninth pass", decision 0020.)
 *
 * A declared length above the limit (or below 9) throws a fatal ProtocolError before anything of
 * that frame is buffered; the splitter then stays failed (the connection must be closed).
 */
export class FrameSplitter {
  /** The largest accepted frame length; a connection raises it once its peer authenticated. */
  maxFrameLength: number;
  /** Called with a frame's total size when its length is known; throwing refuses it (a memory budget). */
  admit: ((total: number) => void) | undefined;
  /** The length field while fewer than its 4 bytes arrived. */
  private readonly head = Buffer.alloc(4);
  private headLength = 0;
  /** The frame being filled, and how many of its bytes arrived. */
  private target: Buffer | null = null;
  private filled = 0;
  /** A frame above WHOLE_FRAME_MAX: copies of its parts so far, their bytes, and its total size. */
  private parts: Buffer[] = [];
  private partsHeld = 0;
  private partsTotal = 0;
  private failed: Error | null = null;

  constructor(options: FrameDecoderOptions = {}) {
    this.maxFrameLength = options.maxFrameLength ?? DEFAULT_MAX_FRAME_LENGTH;
  }

  /** Bytes held or set aside for the frame in progress (a big frame counts at its announced size). */
  get reservedBytes(): number {
    return this.headLength + (this.target === null ? 0 : this.target.length) + this.partsTotal;
  }

  /** Drops the frame in progress (the connection closed), so its buffers can be collected. */
  release(): void {
    this.headLength = 0;
    this.target = null;
    this.parts = [];
    this.partsHeld = 0;
    this.partsTotal = 0;
  }

  /** Bytes held waiting for the rest of a frame. */
  get bufferedBytes(): number {
    return this.headLength + (this.target === null ? 0 : this.filled) + this.partsHeld;
  }

  /** Adds a chunk (read only during this call); returns the frames it completes, in order. */
  push(chunk: Buffer): NetworkFrame[] {
    if (this.failed) throw this.failed;
    try {
      return this.copyOut(chunk);
    } catch (err) {
      this.failed = err as Error;
      this.release();
      throw err;
    }
  }

  private copyOut(chunk: Buffer): NetworkFrame[] {
    const frames: NetworkFrame[] = [];
    let pos = 0;
    while (pos < chunk.length) {
      if (this.target === null && this.partsTotal === 0) {
        let total: number;
        if (this.headLength === 0 && chunk.length - pos >= 4) {
          total = 4 + checkedLength(chunk.readInt32BE(pos), this.maxFrameLength);
        } else {
          const take = Math.min(4 - this.headLength, chunk.length - pos);
          chunk.copy(this.head, this.headLength, pos, pos + take);
          this.headLength += take;
          pos += take;
          if (this.headLength < 4) break;
          total = 4 + checkedLength(this.head.readInt32BE(0), this.maxFrameLength);
        }
        this.start(total);
      }
      pos += this.fill(chunk, pos, frames);
    }
    return frames;
  }

  /** Starts a frame of `total` bytes; the length bytes already taken into `head` go first. */
  private start(total: number): void {
    this.admit?.(total);
    const headBytes = this.headLength;
    this.headLength = 0;
    if (total <= WHOLE_FRAME_MAX) {
      this.target = ownedBuffer(total);
      this.head.copy(this.target, 0, 0, headBytes);
      this.filled = headBytes;
    } else {
      this.partsTotal = total;
      this.parts = headBytes > 0 ? [Buffer.from(this.head.subarray(0, headBytes))] : [];
      this.partsHeld = headBytes;
    }
  }

  /** Copies what `chunk` holds of the current frame from `pos`; returns the bytes taken. */
  private fill(chunk: Buffer, pos: number, frames: NetworkFrame[]): number {
    if (this.target !== null) {
      const take = Math.min(this.target.length - this.filled, chunk.length - pos);
      chunk.copy(this.target, this.filled, pos, pos + take);
      this.filled += take;
      if (this.filled === this.target.length) {
        frames.push(frameAt(this.target, 0, this.target.length));
        this.target = null;
      }
      return take;
    }
    const take = Math.min(this.partsTotal - this.partsHeld, chunk.length - pos);
    this.parts.push(Buffer.from(chunk.subarray(pos, pos + take)));
    this.partsHeld += take;
    if (this.partsHeld === this.partsTotal) {
      frames.push(frameAt(Buffer.concat(this.parts, this.partsTotal), 0, this.partsTotal));
      this.parts = [];
      this.partsHeld = 0;
      this.partsTotal = 0;
    }
    return take;
  }
}
