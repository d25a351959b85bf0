// FrameSplitter copies frames out of what a socket read: with sockets reading into one reused
// buffer (net/socket-reads.ts), every frame must survive the buffer being overwritten after each
// push, whatever the chunking.
import { describe, expect, it } from 'vitest';
import { prng } from '../helpers/prng.js';
import { decodeNetworkFrame, FrameSplitter, ProtocolError, type NetworkFrame } from '../../src/protocol/index.js';
import { FramePool, framePool } from '../../src/protocol/frame-pool.js';
import { captureFiles, readCaptureFile } from './capture-file.js';

const rnd = prng(0xc0b1e5);
const int = (n: number): number => Math.floor(rnd() * n);

/** A frame of `localLength` bytes of local packet (header: length, dst, src, code). */
function frame(localLength: number, code: number, fill: number): Buffer {
  const b = Buffer.alloc(13 + localLength, fill);
  b.writeInt32BE(localLength + 9, 0);
  b.writeInt32BE(int(1000), 4);
  b.writeInt32BE(int(1000), 8);
  b[12] = code;
  return b;
}

const SEEDS = captureFiles().flatMap((f) => readCaptureFile(f)).filter((f) => f.complete).map((f) => f.bytes);

/** The frames of a whole stream, decoded in one piece by decodeNetworkFrame (no splitter). */
function wholeStream(wire: Buffer, maxFrameLength: number): NetworkFrame[] {
  const frames: NetworkFrame[] = [];
  for (let at = 0; at < wire.length; ) {
    const next = decodeNetworkFrame(wire, at, { maxFrameLength });
    if (next === null) break;
    frames.push(next.frame);
    at = next.next;
  }
  return frames;
}

const plain = (frames: NetworkFrame[]): unknown[] => frames.map((f) => ({ dst: f.dstId, src: f.srcId, code: f.code, local: Buffer.from(f.localPacket).toString('hex') }));

/** Feeds `wire` through one reused buffer in random chunks, scribbling over it after each push. */
function copyThroughReusedBuffer(wire: Buffer, splitter: FrameSplitter, maxChunk: number): NetworkFrame[] {
  const reused = Buffer.alloc(maxChunk);
  const out: NetworkFrame[] = [];
  for (let pos = 0; pos < wire.length; ) {
    const n = Math.min(1 + int(maxChunk), wire.length - pos);
    wire.copy(reused, 0, pos, pos + n);
    out.push(...splitter.push(reused.subarray(0, n)));
    reused.fill(0xee);
    pos += n;
  }
  return out;
}

describe('FrameSplitter', () => {
  it('gives the frames of the whole stream, though the chunk buffer is overwritten after each push', () => {
    const big = 1024 * 1024 + 200 * 1024; // above the size taken whole at once: kept as parts
    const parts = [...SEEDS.slice(0, 300), frame(65536 + 40, 3, 0x41), frame(53392 + 40, 3, 0x42), frame(big, 3, 0x43), frame(0, 23, 0), ...SEEDS.slice(300, 600)];
    const wire = Buffer.concat(parts);
    const expected = plain(wholeStream(wire, 4 << 20));
    expect(expected.length).toBe(parts.length);
    for (const maxChunk of [1, 3, 5, 17, 4096, 65536, 256 * 1024]) {
      const splitter = new FrameSplitter({ maxFrameLength: 4 << 20 });
      const got = copyThroughReusedBuffer(maxChunk < 17 ? wire.subarray(0, 20_000) : wire, splitter, maxChunk);
      const want = maxChunk < 17 ? plain(wholeStream(wire.subarray(0, 20_000), 4 << 20)) : expected;
      expect(plain(got)).toEqual(want);
      if (maxChunk >= 17) expect(splitter.bufferedBytes).toBe(0);
    }
  });

  it('refuses a declared length out of bounds before taking any buffer, then stays failed', () => {
    for (const len of [8, -1, 0x7fffffff, 256 * 1024 + 1]) {
      const head = Buffer.alloc(4);
      head.writeInt32BE(len, 0);
      const splitter = new FrameSplitter({ maxFrameLength: 256 * 1024 });
      const allocated = framePool.allocated;
      expect(() => {
        splitter.push(head.subarray(0, 2));
        splitter.push(head.subarray(2));
      }).toThrow(ProtocolError);
      expect(framePool.allocated).toBe(allocated);
      expect(splitter.bufferedBytes).toBe(0);
      expect(() => splitter.push(Buffer.from(SEEDS[0] as Buffer))).toThrow(ProtocolError);
    }
  });

  it('a length announced above 1 MiB takes memory only as its bytes arrive', () => {
    const splitter = new FrameSplitter({ maxFrameLength: 16 << 20 });
    const head = Buffer.alloc(4);
    head.writeInt32BE(16 << 20, 0);
    expect(splitter.push(head)).toEqual([]);
    expect(splitter.bufferedBytes).toBe(4);
  });

  it('copies block frames into pooled memory that comes back for the next frames', () => {
    const pool = new FramePool();
    const taken = pool.takeReceived(65536 + 53);
    expect(taken.length).toBe(65536 + 53);
    pool.giveBack(taken.subarray(53, 1000)); // any view of it finds the whole frame
    const again = pool.takeReceived(65536 + 60); // same rounded size: the same memory
    expect(again.buffer).toBe(taken.buffer);
    expect(pool.allocated).toBe(1);
    pool.giveBack(Buffer.alloc(70_000)); // not the pool's: ignored
    expect(pool.heldBytes).toBe(0);
  });

  it('a data block copied out of a read lies in a frame of the process pool', () => {
    framePool.release(); // the process's pool, which earlier files of this worker may have filled
    const splitter = new FrameSplitter();
    const [f] = splitter.push(frame(65536 + 40, 3, 0x55));
    const allocated = framePool.allocated;
    framePool.giveBack(f!.localPacket);
    const [g] = splitter.push(frame(65536 + 40, 3, 0x56));
    expect(framePool.allocated).toBe(allocated);
    expect(g!.localPacket.buffer).toBe(f!.localPacket.buffer);
    expect(g!.localPacket[100]).toBe(0x56);
  });
});
