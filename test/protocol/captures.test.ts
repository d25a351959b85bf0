import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FrameSplitter,
  decodeFramePacket,
  encodeFrame,
  type Packet,
} from '../../src/protocol/index.js';
import { CAPTURES_DIR, SPEC_CAPTURES_DIR, captureFiles, readCaptureFile, type CapturedFrame } from './capture-file.js';

/** Checks the decoded fields against what the capture shows for that frame. */
function expectFields(p: Packet, f: CapturedFrame): void {
  const h = f.header;
  const m = f.middle;
  const e = f.end;
  switch (p.kind) {
    case 'authent':
      expect(p.hostId).toBe(h.text);
      expect(p.key.toString('hex')).toBe(m.bytes.toString('hex'));
      expect(p.localId).toBe(e.bytes.readInt32BE(0));
      expect(p.way).toBe(e.bytes[4]);
      expect(p.version).toBe(e.bytes.subarray(5).toString('utf8'));
      expect(p.version).toMatch(/^3\.1\.0\.\{"HOSTID":"host[ab]"/);
      break;
    case 'request': {
      const rule = JSON.parse(h.text as string) as { rule: string; mode: number };
      expect(p.encoding).toBe('json');
      expect(p.rule).toBe(rule.rule);
      expect(p.mode).toBe(rule.mode);
      expect(p.way).toBe(m.bytes[0]);
      const text = m.bytes.subarray(1).toString('utf8');
      expect(String(p.specialId)).toBe(/"id":(-?\d+)/.exec(text)?.[1]);
      expect(String(p.length)).toBe(/"length":(-?\d+)/.exec(text)?.[1]);
      expect(String(p.limit)).toBe(/"limit":(-?\d+)/.exec(text)?.[1]);
      expect(p.code.char.charCodeAt(0)).toBe(Number(/"code":(\d+)/.exec(text)?.[1]));
      expect(p.filename).toBe(/"filename":"([^"]*)"/.exec(text)?.[1]);
      expect(p.fileInformation).toBe(e.text);
      break;
    }
    case 'jsonCommand':
      expect(p.command).not.toBeNull();
      expect(`org.waarp.openr66.protocol.localhandler.packet.json.${p.command?.jsonClass}`).toBe(/"@class":"([^"]+)"/.exec(h.text as string)?.[1]);
      expect(p.result).toBe(m.bytes.toString('utf8'));
      expect(p.subType).toBe(e.bytes[0]);
      break;
    case 'data':
      expect(p.rank).toBe(h.bytes.readInt32BE(0));
      expect(p.data.length).toBe(m.length);
      expect(p.data.subarray(0, 16).equals(m.bytes.subarray(0, 16))).toBe(true);
      expect(p.digest.length).toBe(e.length);
      break;
    case 'endTransfer':
      expect(p.request).toBe(7);
      expect(p.way).toBe(m.bytes[0]);
      expect(p.hash).toBe(e.text ?? '');
      break;
    case 'endRequest':
      expect(p.code.ordinal).toBe(h.bytes.readInt32BE(0));
      expect(p.code.name).toBe('CompleteOk');
      expect(p.way).toBe(m.bytes[0]);
      expect(p.info).toBe('');
      break;
    case 'test':
      expect([p.header, p.middle, p.counter]).toEqual([h.text, m.text, e.bytes.readInt32BE(0)]);
      break;
    case 'valid':
      // The capture shows only the start of a long header (runner XML): compare that prefix.
      expect(h.complete ? p.header : p.header.slice(0, h.text?.length)).toBe(h.text ?? '');
      expect([p.middle, p.subType]).toEqual([m.text ?? '', e.bytes[0]]);
      break;
    case 'information':
      expect([p.ruleOrId, p.request, p.filename]).toEqual([h.text, m.bytes.readInt8(0), e.text ?? '']);
      break;
    case 'error':
      expect([p.message, p.code.char, p.action]).toEqual([h.text, m.text, 3]);
      break;
    case 'connectionError':
      expect([p.message, p.middle]).toEqual([h.text, m.text ?? '']);
      break;
    case 'keepAlive':
      expect(p.way).toBe(m.bytes[0]);
      expect(f.dstId).toBe(-0x80000000);
      break;
    default:
      throw new Error(`capture frame of unexpected kind ${p.kind}`);
  }
}

// The repository's copy is what the tests read; beside the specification it must still be the same.
describe.skipIf(!existsSync(SPEC_CAPTURES_DIR))('the fixtures copy of the captures', () => {
  it('holds exactly the files of ../shared/spec/captures, byte for byte', () => {
    const names = readdirSync(SPEC_CAPTURES_DIR).sort();
    expect(readdirSync(CAPTURES_DIR).sort()).toEqual(names);
    for (const name of names) expect(readFileSync(join(CAPTURES_DIR, name)).equals(readFileSync(join(SPEC_CAPTURES_DIR, name))), name).toBe(true);
  });
});

describe.each(captureFiles())('capture %s', (file) => {
  const frames = readCaptureFile(file);

  it('has frames, each consistent with its raw bytes', () => {
    expect(frames.length).toBeGreaterThan(50);
    for (const f of frames) {
      expect(f.bytes.length, f.id).toBe(4 + f.frameLength);
      expect(f.bytes.subarray(0, f.raw.length).equals(f.raw), f.id).toBe(true);
    }
  });

  it.each(frames.map((f) => [f.id + (f.complete ? '' : ' (block shown in part)'), f] as const))('%s decodes and re-encodes identically', (_id, f) => {
    const frames = new FrameSplitter().push(f.bytes);
    expect(frames).toHaveLength(1);
    const frame = frames[0]!;
    expect([frame.dstId, frame.srcId, frame.code]).toEqual([f.dstId, f.srcId, f.code]);
    const packet = decodeFramePacket(frame);
    expectFields(packet, f);
    expect(encodeFrame(frame.dstId, frame.srcId, packet).equals(f.bytes)).toBe(true);
  });

  it('splits each TCP stream into the same frames whatever the chunking', () => {
    const streams = new Map<number, CapturedFrame[]>();
    for (const f of frames) streams.set(f.stream, [...(streams.get(f.stream) ?? []), f]);
    let seed = 7;
    for (const list of streams.values()) {
      const wire = Buffer.concat(list.map((f) => f.bytes));
      const splitter = new FrameSplitter();
      const got = [];
      for (let pos = 0; pos < wire.length; ) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const n = 1 + (seed % 700);
        got.push(...splitter.push(wire.subarray(pos, pos + n)));
        pos += n;
      }
      expect(splitter.bufferedBytes).toBe(0);
      expect(got.map((g) => encodeFrame(g.dstId, g.srcId, decodeFramePacket(g)).toString('hex'))).toEqual(list.map((f) => f.bytes.toString('hex')));
    }
  });
});
