import { describe, expect, it } from 'vitest';
import { prng } from '../helpers/prng.js';
import {
  FrameSplitter,
  ProtocolError,
  decodeFramePacket,
  decodePacket,
  decodeEnvelope,
  decodeParts,
  decodeValidCommand,
  parseVersionString,
  type NetworkFrame,
} from '../../src/protocol/index.js';
import { captureFiles, readCaptureFile } from './capture-file.js';

const MAX = 256 * 1024;
const rnd = prng(0x5eed);
const int = (n: number): number => Math.floor(rnd() * n);
const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => int(256)));

/** Seeds: every complete capture frame below 4 KiB. */
const SEEDS = captureFiles()
  .flatMap((f) => readCaptureFile(f))
  .filter((f) => f.complete && f.bytes.length < 4096)
  .map((f) => f.bytes);

/**
 * decodePacket turns an unexpected exception into a ProtocolError as a last resort; the fuzz calls
 * the layers under it directly, so that such a bug would show here instead of being masked.
 */
const decodeRaw = (local: Buffer): unknown => decodeParts(decodeEnvelope(local));

/** Runs `fn`; anything thrown must be a ProtocolError. Returns true when it threw. */
function onlyProtocolErrors(fn: () => void): boolean {
  try {
    fn();
    return false;
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw new Error(`non-ProtocolError thrown: ${String(err)}`, { cause: err });
    expect(typeof err.errorCode.char).toBe('string');
    return true;
  }
}

/** Decodes every frame fully, exercising the typed layers on top too. */
function decodeAll(frames: NetworkFrame[]): void {
  for (const frame of frames) {
    onlyProtocolErrors(() => {
      const p = decodeFramePacket(frame);
      if (p.kind === 'valid') decodeValidCommand(p);
      if (p.kind === 'authent') parseVersionString(p.version);
    });
  }
}

/** Feeds `wire` in random chunks; checks the buffering stays bounded. */
function feed(wire: Buffer): void {
  const s = new FrameSplitter({ maxFrameLength: MAX });
  onlyProtocolErrors(() => {
    for (let pos = 0; pos < wire.length; ) {
      const n = 1 + int(Math.min(wire.length, 3000));
      decodeAll(s.push(wire.subarray(pos, pos + n)));
      expect(s.bufferedBytes).toBeLessThanOrEqual(MAX + 4);
      pos += n;
    }
  });
}

function mutate(src: Buffer): Buffer {
  const b = Buffer.from(src);
  const edits = 1 + int(4);
  for (let i = 0; i < edits; i++) {
    const at = int(b.length);
    switch (int(4)) {
      case 0: b[at] = int(256); break;
      case 1: if (at + 4 <= b.length) b.writeInt32BE(int(2) ? int(64) : (int(0x100000000) | 0), at); break;
      case 2: b[at] = [0x7b, 0x7d, 0x22, 0x3b, 0x20, 0x5c, 0xff][int(7)] as number; break;
      default: if (at + 4 <= b.length) b.writeInt32BE([0, 9, -1, 0x7fffffff, -0x80000000][int(5)] as number, at);
    }
  }
  return b;
}

describe('fuzz: frame splitter and packet decoder throw only ProtocolError, allocate boundedly', () => {
  it('has seeds from the captures', () => {
    expect(SEEDS.length).toBeGreaterThan(100);
  });

  it('random byte streams', () => {
    for (let i = 0; i < 800; i++) feed(bytes(int(2000)));
  });

  it('oversized and undersized declared lengths are refused before buffering', () => {
    for (let i = 0; i < 500; i++) {
      const head = Buffer.alloc(4);
      const len = int(2) ? MAX + 1 + int(0x7fffffff - MAX) : -int(0x80000000) + int(9);
      head.writeInt32BE(len | 0, 0);
      const s = new FrameSplitter({ maxFrameLength: MAX });
      const split = int(4);
      expect(onlyProtocolErrors(() => {
        s.push(head.subarray(0, split));
        s.push(head.subarray(split));
      })).toBe(true);
      expect(s.bufferedBytes).toBe(0);
    }
  });

  it('truncated frames and local packets', () => {
    for (let i = 0; i < 1000; i++) {
      const seed = SEEDS[int(SEEDS.length)] as Buffer;
      const cut = int(seed.length);
      const s = new FrameSplitter({ maxFrameLength: MAX });
      expect(s.push(seed.subarray(0, cut))).toEqual([]);
      // The same local packet, cut short, must be refused by the envelope.
      if (cut > 13) expect(onlyProtocolErrors(() => decodePacket(seed.subarray(13, cut)))).toBe(true);
    }
  });

  it('mutated capture frames', () => {
    for (let i = 0; i < 3000; i++) {
      const m = mutate(SEEDS[int(SEEDS.length)] as Buffer);
      feed(m);
      onlyProtocolErrors(() => decodeRaw(m.subarray(13)));
    }
  });

  it('random well-formed envelopes of every type code', () => {
    for (let i = 0; i < 3000; i++) {
      const h = bytes(int(3) === 0 ? int(6) : int(40));
      const m = bytes(int(3) === 0 ? int(6) : int(40));
      const e = bytes(int(3) === 0 ? int(6) : int(40));
      if (int(3) === 0) h.write('{"rule":"x","mode":1}'.slice(0, h.length));
      const env = Buffer.alloc(13);
      env.writeInt32BE(9 + h.length, 0);
      env.writeInt32BE(m.length, 4);
      env.writeInt32BE(e.length, 8);
      env[12] = int(30);
      onlyProtocolErrors(() => decodeRaw(Buffer.concat([env, h, m, e])));
    }
  });

  it('stays within its time budget', () => {
    const start = Date.now();
    for (let i = 0; i < 500; i++) feed(mutate(SEEDS[int(SEEDS.length)] as Buffer));
    expect(Date.now() - start).toBeLessThan(10_000);
  });
});
