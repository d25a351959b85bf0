import { describe, expect, it } from 'vitest';
import {
  DATA_FRAME_PREFIX_SIZE,
  ErrorCode,
  FrameSplitter,
  NOCHANNEL,
  ProtocolError,
  answerTest,
  decodeFramePacket,
  decodePacket,
  decodeValidCommand,
  encodeDataPacketHeader,
  encodeEnvelope,
  encodeFrame,
  encodePacket,
  encodeValidCommand,
  invalidCommandAnswer,
  negotiateBlockSize,
  newJsonCommand,
  parseJsonCommand,
  parseStoppedRank,
  stoppedTransferMessage,
  stringifyJsonCommand,
  type Packet,
  type RequestPacket,
  type ValidCommand,
} from '../../src/protocol/index.js';

const A = 0x1a2b3c4d;
const B = 0x00000101;
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const ascii = (s: string): string => Buffer.from(s).toString('hex');

function decodeHex(bytes: Buffer): Packet {
  const frames = new FrameSplitter().push(bytes);
  expect(frames).toHaveLength(1);
  return decodeFramePacket(frames[0]!);
}

/** Decodes a spec example, checks the fields, and re-encodes it to the same bytes. */
function roundTrip(bytes: Buffer, fields: Record<string, unknown>, dst = bytes.readInt32BE(4), src = bytes.readInt32BE(8)): Packet {
  const p = decodeHex(bytes);
  expect(p).toMatchObject(fields);
  expect(encodeFrame(dst, src, p).toString('hex')).toBe(bytes.toString('hex'));
  return p;
}

/** Local packet bytes from raw parts (lets a test build what our encoders would refuse to). */
const env = (type: number, header: Buffer, middle: Buffer, end: Buffer): Buffer => encodeEnvelope({ type, header, middle, end });

function rejects(local: Buffer, code = ErrorCode.RemoteError): ProtocolError {
  try {
    decodePacket(local);
  } catch (err) {
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).errorCode).toBe(code);
    return err as ProtocolError;
  }
  throw new Error('expected a ProtocolError');
}

const REQUEST_JSON_EXAMPLE = hex(
  '000000ac 00000101 1a2b3c4d 07 00000021 00000063 0000001b 07' +
    ascii('{"rule":"send","mode":3}') + '00' +
    ascii('{"filename":"data.bin","block":65536,"rank":0,"id":1700000000001,"code":105,"length":16,"limit":0}') +
    ascii('noinfo {"follow":123456789}'),
);

describe('spec examples (r66-protocol-packets.md), decoded and re-encoded byte for byte', () => {
  it('NoOp (r66-protocol.md §2)', () => {
    roundTrip(hex('00000016 00000002 00000001 17 00000009 00000000 00000000 17'), { kind: 'noOp' });
  });

  it('Data with MD5 digest, and without; decoding returns views, not copies', () => {
    const data = Buffer.from('0123456789ABCDEF');
    const digest = hex('e43df9b5a46b755ea8f1b4dd08265544');
    const bytes = hex('0000003a 00000101 1a2b3c4d 03 0000000d 00000010 00000010 03 00000000' + data.toString('hex') + digest.toString('hex'));
    expect(bytes.length).toBe(62);
    const p = roundTrip(bytes, { kind: 'data', rank: 0, data, digest });
    expect(p.kind === 'data' && p.data.buffer).toBe(bytes.buffer);
    const plain = encodeFrame(B, A, { kind: 'data', rank: 0, data, digest: Buffer.alloc(0) });
    expect(plain.length).toBe(46);
  });

  it('Data header written in place in front of the block (zero copy send path)', () => {
    const data = Buffer.from('0123456789ABCDEF');
    const digest = hex('e43df9b5a46b755ea8f1b4dd08265544');
    const pool = Buffer.alloc(8 + DATA_FRAME_PREFIX_SIZE + 32);
    data.copy(pool, 8 + DATA_FRAME_PREFIX_SIZE);
    digest.copy(pool, 8 + DATA_FRAME_PREFIX_SIZE + 16);
    const size = encodeDataPacketHeader(pool, 8, B, A, 0, 16, 16);
    expect(pool.subarray(8, 8 + size)).toEqual(encodeFrame(B, A, { kind: 'data', rank: 0, data, digest }));
    expect(() => encodeDataPacketHeader(pool, 0, B, A, 0, 0)).toThrow(RangeError);
  });

  it('Valid: end of test', () => {
    roundTrip(hex('0000002d 1a2b3c4d 00000101 04 0000001f 00000000 00000001 04' + ascii('TestPacket: MSG:hi:101') + '0d'), {
      kind: 'valid', header: 'TestPacket: MSG:hi:101', middle: '', subType: 13,
    });
  });

  it('Error: refused authentication', () => {
    const bytes = hex('0000003b 00000101 1a2b3c4d 05 00000029 00000001 00000004 05' + ascii('Key is not valid for this HostId') + '41 00000003');
    expect(bytes.length).toBe(63);
    roundTrip(bytes, { kind: 'error', message: 'Key is not valid for this HostId', code: ErrorCode.BadAuthent, action: 3 });
  });

  it('ConnectionError', () => {
    roundTrip(hex('0000001a 00000101 1a2b3c4d 06 0000000d 00000000 00000000 06' + ascii('oops')), { kind: 'connectionError', message: 'oops', middle: '' });
  });

  it('Request, JSON encoding (176 bytes), id exact as bigint', () => {
    expect(REQUEST_JSON_EXAMPLE.length).toBe(176);
    roundTrip(REQUEST_JSON_EXAMPLE, {
      kind: 'request', encoding: 'json', rule: 'send', mode: 3, way: 0, filename: 'data.bin', blockSize: 65536, rank: 0,
      specialId: 1700000000001n, code: ErrorCode.InitOk, length: 16n, limit: 0n, fileInformation: 'noinfo {"follow":123456789}',
    });
  });

  it('Request, legacy encoding (74 bytes)', () => {
    const bytes = hex('00000046 00000101 1a2b3c4d 07 0000000f 00000024 00000006 07' + ascii('send 3') + '00' + ascii('data.bin;65536;0;1700000000001;i;16') + ascii('noinfo'));
    expect(bytes.length).toBe(74);
    roundTrip(bytes, { kind: 'request', encoding: 'legacy', rule: 'send', mode: 3, filename: 'data.bin', specialId: 1700000000001n, length: 16n, limit: 0n, separator: ';' });
  });

  it('Shutdown with restart (43 bytes)', () => {
    const key = hex('8af5b987ed92515f97bb4a4b717a0286');
    roundTrip(hex('00000027 00000101 1a2b3c4d 08 00000019 00000001 00000000 08' + key.toString('hex') + '01'), { kind: 'shutdown', key, restart: true });
  });

  it('Test (35 bytes)', () => {
    roundTrip(hex('0000001f 00000101 1a2b3c4d 0d 0000000c 00000002 00000004 0d' + ascii('MSG') + ascii('hi') + '00000064'), { kind: 'test', header: 'MSG', middle: 'hi', counter: 100 });
  });

  it('EndTransfer with MD5 hash (60 bytes)', () => {
    roundTrip(hex('00000038 00000101 1a2b3c4d 0e 0000000a 00000001 00000020 0e 07 00' + ascii('e43df9b5a46b755ea8f1b4dd08265544')), {
      kind: 'endTransfer', request: 7, way: 0, hash: 'e43df9b5a46b755ea8f1b4dd08265544',
    });
  });

  it('Information REQUEST_CHECK (30 bytes): kind byte 0xFF is -1', () => {
    roundTrip(hex('0000001a 00000101 1a2b3c4d 12 0000000b 00000001 00000001 12' + ascii('42') + 'ff' + ascii('1')), { kind: 'information', ruleOrId: '42', request: -1, filename: '1' });
  });

  it('EndRequest request and answer (31 bytes): code is the ErrorCode ordinal', () => {
    roundTrip(hex('0000001b 00000101 1a2b3c4d 14 0000000d 00000001 00000000 14 00000004 00'), { kind: 'endRequest', code: ErrorCode.CompleteOk, way: 0 });
    roundTrip(hex('0000001b 1a2b3c4d 00000101 14 0000000d 00000001 00000000 14 00000004 01'), { kind: 'endRequest', code: ErrorCode.CompleteOk, way: 1 });
  });

  it('KeepAlive (27 bytes), NOCHANNEL ids', () => {
    const p = roundTrip(hex('00000017 80000000 80000000 15 00000009 00000001 00000000 15 00'), { kind: 'keepAlive', way: 0 });
    expect(encodeFrame(NOCHANNEL, NOCHANNEL, p).readInt32BE(4)).toBe(NOCHANNEL);
  });

  it('BusinessRequest (42 bytes)', () => {
    roundTrip(hex('00000026 00000101 1a2b3c4d 16 00000014 00000004 00000001 16' + ascii('org.x.Y arg') + '00000000 00'), { kind: 'businessRequest', header: 'org.x.Y arg', delay: 0, way: 0 });
  });

  it('BlockRequest (43 bytes)', () => {
    const key = hex('8af5b987ed92515f97bb4a4b717a0286');
    roundTrip(hex('00000027 00000101 1a2b3c4d 18 0000001a 00000000 00000000 18 01' + key.toString('hex')), { kind: 'blockRequest', block: true, key });
  });

  it('JsonCommand stop and its answer (223 and 224 bytes)', () => {
    const json = '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.StopOrCancelJsonPacket","comment":"Request on Transfer","requestUserPacket":0,"requester":"hosta","requested":"hostb","specialid":42}';
    expect(json.length).toBe(196);
    const ask = roundTrip(hex('000000db 00000101 1a2b3c4d 19 000000cd 00000000 00000001 19' + ascii(json) + '09'), { kind: 'jsonCommand', result: '', subType: 9 });
    expect(ask.kind === 'jsonCommand' && ask.command).toEqual({ jsonClass: 'StopOrCancelJsonPacket', comment: 'Request on Transfer', requestUserPacket: 0, requester: 'hosta', requested: 'hostb', specialid: 42n });
    roundTrip(hex('000000dc 1a2b3c4d 00000101 19 000000cd 00000001 00000001 19' + ascii(json) + '4f 0f'), { kind: 'jsonCommand', result: 'O', subType: 15 });
  });
});

describe('JSON command objects (packets §16)', () => {
  it.each([
    '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.RestartTransferJsonPacket","comment":null,"requestUserPacket":4,"requester":"hosta","requested":"hostb","specialid":42,"restarttime":1700000000000}',
    '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.BandwidthJsonPacket","comment":null,"requestUserPacket":19,"setter":false,"writeglobal":-10,"readglobal":-10,"writesession":-10,"readsession":-10}',
    '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.InformationJsonPacket","comment":null,"requestUserPacket":18,"id":0,"request":2,"rulename":"rule1","filename":"*.txt","idRequest":false,"to":false}',
    '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.RequestJsonPacket","comment":"Change Filename by Pre action on sender","requestUserPacket":0,"filename":"new.txt","filesize":10,"fileInfo":null}',
    '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.ShutdownOrBlockJsonPacket","comment":null,"requestUserPacket":24,"key":"ivW5h+2SUV+Xu0pLcXoChg==","shutdownOrBlock":false,"restartOrBlock":true}',
    '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.LogJsonPacket","comment":null,"requestUserPacket":16,"purge":false,"clean":false,"statuspending":false,"statustransfer":false,"statusdone":false,"statuserror":false,"rule":null,"request":null,"start":1700000000000,"stop":null,"startid":null,"stopid":null}',
    '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.BusinessRequestJsonPacket","comment":null,"requestUserPacket":22,"className":"org.x.Y","arguments":null,"extraArguments":null,"delay":0,"toApplied":false,"validated":false}',
  ])('%s', (json) => {
    const cmd = parseJsonCommand(json);
    expect(cmd).not.toBeNull();
    expect(stringifyJsonCommand(cmd!)).toBe(json);
  });

  it('decodes the admin key from Base64 and fills Java defaults for missing fields', () => {
    const c = parseJsonCommand('{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.ShutdownOrBlockJsonPacket","key":"ivW5h+2SUV+Xu0pLcXoChg=="}');
    expect(c?.jsonClass === 'ShutdownOrBlockJsonPacket' && c.key?.toString('hex')).toBe('8af5b987ed92515f97bb4a4b717a0286');
    expect(parseJsonCommand('{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.StopOrCancelJsonPacket"}')).toMatchObject({ specialid: -(2n ** 63n), requester: null });
    expect(newJsonCommand('BandwidthJsonPacket')).toMatchObject({ writeglobal: -10n, setter: false });
  });

  it('TransferRequestJsonPacket: validate is a byte, additionalDelay a boolean, toValidate derived (rest-v1.md §8)', () => {
    const cls = 'org.waarp.openr66.protocol.localhandler.packet.json.TransferRequestJsonPacket';
    const json = `{"@class":"${cls}","comment":null,"requestUserPacket":7,"rulename":"send","mode":1,"filename":"a.txt","requested":"hostb","blocksize":65536,"rank":0,"specialId":-9223372036854775805,"validate":1,"originalSize":-1,"fileInformation":"","separator":"{","start":1715590800000,"delay":0,"additionalDelay":false,"toValidate":false}`;
    const cmd = parseJsonCommand(json);
    expect(cmd).toMatchObject({ validate: 1, additionalDelay: false, toValidate: false });
    expect(stringifyJsonCommand(cmd!)).toBe(json);
    // toValidate is output only: whatever a body says, it is written as validate == 0.
    const fresh = parseJsonCommand(`{"@class":"${cls}","validate":0,"additionalDelay":true,"toValidate":false}`);
    expect(fresh).toMatchObject({ validate: 0, additionalDelay: true, toValidate: true });
    expect(stringifyJsonCommand(newJsonCommand('TransferRequestJsonPacket', { validate: 1 }))).toContain('"validate":1,');
    expect(stringifyJsonCommand(newJsonCommand('TransferRequestJsonPacket', { validate: 1 }))).toContain('"additionalDelay":false,"toValidate":false}');
    // The wrong types are not silently accepted by the strict wire codec.
    expect(parseJsonCommand(`{"@class":"${cls}","validate":true}`)).toBeNull();
  });

  it('unknown @class or bad JSON is not a decoding error: command null, answer "Invalid command"', () => {
    for (const json of ['{"@class":"org.x.Nope"}', '{"comment":"x"}', 'not json', '[1]', '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.JsonPacket","requestUserPacket":"x"}']) {
      expect(parseJsonCommand(json)).toBeNull();
    }
    expect(stringifyJsonCommand(invalidCommandAnswer(9))).toBe('{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.JsonPacket","comment":"Invalid command","requestUserPacket":9}');
    const p = decodePacket(encodePacket({ kind: 'jsonCommand', command: null, json: 'garbage', result: '', subType: 9 }));
    expect(p).toMatchObject({ kind: 'jsonCommand', command: null, json: 'garbage' });
  });

  it('writes non-ASCII as \\u escapes like the Java host, reads plain UTF-8 too', () => {
    const cmd = newJsonCommand('RequestJsonPacket', { filename: 'été/日本.txt', filesize: 1n });
    expect(stringifyJsonCommand(cmd)).toContain('"filename":"\\u00E9t\\u00E9/\\u65E5\\u672C.txt"');
    expect(parseJsonCommand(stringifyJsonCommand(cmd))).toEqual(cmd);
    expect(parseJsonCommand('{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.RequestJsonPacket","filename":"été"}')).toMatchObject({ filename: 'été' });
  });
});

describe('interoperability rules the codec follows', () => {
  const request = (over: Partial<RequestPacket> = {}): RequestPacket => ({
    kind: 'request', encoding: 'json', rule: 'send', mode: 1, way: 0, filename: 'f', blockSize: 65536, rank: 0,
    specialId: 729553924055367690n, code: ErrorCode.InitOk, length: -1n, limit: 0n, fileInformation: '', ...over,
  });

  it('int64 ids above 2^53 and negative ids survive JSON exactly', () => {
    for (const id of [729553924055367690n, -5035053932263505913n, 2n ** 63n - 1n, -(2n ** 63n)]) {
      const p = decodePacket(encodePacket(request({ specialId: id })));
      expect(p.kind === 'request' && p.specialId).toBe(id);
    }
  });

  it('Request JSON: empty strings omitted, missing numbers are 0, code is the character code point', () => {
    const bytes = encodePacket(request({ rule: '', filename: '' }));
    expect(bytes.toString()).toContain('{"mode":1}');
    expect(bytes.toString()).toContain('{"block":65536,');
    expect(encodePacket(request()).toString()).toContain('"code":105');
    const local = env(7, Buffer.from('{"rule":"r","mode":2}'), Buffer.concat([Buffer.of(1), Buffer.from('{"id":5,"code":108}')]), Buffer.alloc(0));
    expect(decodePacket(local)).toMatchObject({ rule: 'r', mode: 2, way: 1, filename: '', blockSize: 0, rank: 0, specialId: 5n, code: ErrorCode.ServerOverloaded, length: 0n, limit: 0n });
  });

  it('legacy Request: space separator for old partners, fewer than 5 fields refused, length optional', () => {
    const spaced = encodePacket(request({ encoding: 'legacy', separator: ' ' }));
    expect(decodePacket(spaced)).toMatchObject({ encoding: 'legacy', separator: ' ', specialId: 729553924055367690n, length: -1n });
    const legacy = (middle: string): Buffer => env(7, Buffer.from('send 1'), Buffer.concat([Buffer.of(0), Buffer.from(middle)]), Buffer.alloc(0));
    expect(decodePacket(legacy('a;100;0;7;i'))).toMatchObject({ length: -1n, specialId: 7n });
    expect(decodePacket(legacy('a;100;0;7;i;;;'))).toMatchObject({ length: -1n });
    rejects(legacy('a;100;0;7'));
    rejects(legacy('a;x;0;7;i'));
    expect(() => encodePacket(request({ mode: 0 }))).toThrow(RangeError);
  });

  it('block size: below 100 means the local default; the requested host caps it', () => {
    expect(negotiateBlockSize(99, 65536)).toBe(65536);
    expect(negotiateBlockSize(100, 65536)).toBe(100);
    expect(negotiateBlockSize(1 << 20, 65536, 65536)).toBe(65536);
  });

  it('Test: counter starts at 100, one round trip, never sent above 100', () => {
    const first = { kind: 'test' as const, header: 'MSG', middle: 'hi', counter: 100 };
    expect(answerTest(first)).toEqual({ kind: 'valid', header: 'TestPacket: MSG:hi:101', middle: '', subType: 13 });
    expect(answerTest({ ...first, counter: 50 })).toEqual({ ...first, counter: 51 });
    expect(() => encodePacket({ ...first, counter: 101 })).toThrow(RangeError);
  });

  it('stop Error header ends with the numeric rank; cancel sends 0', () => {
    expect(stoppedTransferMessage(12)).toBe('StoppedTransfer 12');
    expect(parseStoppedRank('StoppedTransfer 12')).toBe(12);
    expect(parseStoppedRank('StoppedTransfer')).toBeNull();
  });

  it('rejects what a Java decoder rejects', () => {
    const none = Buffer.alloc(0);
    for (const t of [9, 10, 11, 12, 15, 16, 17, 19]) expect(rejects(env(t, none, none, none)).message).toMatch(/Unimplemented Packet Type/);
    for (const t of [0, 26, 255]) expect(rejects(env(t, none, none, none)).message).toMatch(/Unvalid Packet Type/);
    rejects(env(3, Buffer.alloc(4), none, none)); // empty Data
    rejects(env(5, Buffer.from('x'), Buffer.from('A'), Buffer.alloc(5))); // Error E != 4
    rejects(env(14, Buffer.of(7, 0), Buffer.of(0), none)); // EndTransfer H != 1
    rejects(env(20, Buffer.alloc(4), Buffer.of(0, 0), none)); // EndRequest M != 1
    rejects(env(20, Buffer.from('00000022', 'hex'), Buffer.of(0), none)); // ordinal 34 unknown
    rejects(env(18, Buffer.from('r'), Buffer.of(0, 0), none)); // Information M != 1
    rejects(env(22, none, Buffer.alloc(3), Buffer.of(0))); // BusinessRequest M != 4
    rejects(env(1, Buffer.from('h'), Buffer.alloc(16), Buffer.alloc(4))); // Authent E < 5
    rejects(env(24, Buffer.of(1), none, none)); // BlockRequest H < 2
    rejects(env(21, Buffer.of(0), Buffer.of(0), none)); // KeepAlive with a header
    rejects(env(13, none, none, Buffer.alloc(3))); // Test counter short
    rejects(env(4, none, none, none)); // Valid without sub-type
  });

  it('frame splitter refuses a too large or too small declared length before buffering it', () => {
    const s = new FrameSplitter({ maxFrameLength: 1000 });
    expect(() => s.push(hex('000003e9'))).toThrow(ProtocolError);
    expect(s.bufferedBytes).toBe(0);
    expect(() => s.push(hex('00'))).toThrow(ProtocolError);
    const t = new FrameSplitter();
    t.push(hex('00'));
    try {
      t.push(hex('000008'));
      throw new Error('expected a ProtocolError');
    } catch (err) {
      expect(err).toMatchObject({ fatal: true, errorCode: ErrorCode.ConnectionImpossible });
    }
  });

  it('frame splitter works byte by byte', () => {
    const s = new FrameSplitter();
    const got = [];
    for (const b of REQUEST_JSON_EXAMPLE) got.push(...s.push(Buffer.of(b)));
    expect(got).toHaveLength(1);
    expect(encodeFrame(B, A, decodeFramePacket(got[0]!))).toEqual(REQUEST_JSON_EXAMPLE);
  });

  it('frame code must equal the packet type byte', () => {
    const bad = Buffer.from(REQUEST_JSON_EXAMPLE);
    bad[12] = 4;
    expect(() => decodeFramePacket(new FrameSplitter().push(bad)[0]!)).toThrow(ProtocolError);
  });
});

describe('Valid sub-commands (packets §5.1)', () => {
  const cases: ValidCommand[] = [
    { cmd: 'restart', requested: 'hostb', requester: 'hosta', specialId: 42n, restartTime: '20231114221320' },
    { cmd: 'restart', requested: 'hostb', requester: 'hosta', specialId: -5n, restartTime: null },
    { cmd: 'change', reason: 'Change Filename by Pre action on sender', filename: 'new.txt', size: 10n, fileInformation: null },
    { cmd: 'change', reason: 'Change Filesize / FileInfo on sender', filename: '/out/a.txt', size: 31n, fileInformation: 'noinfo {"follow":1}' },
    { cmd: 'shutdownNotice', rank: 12 },
    { cmd: 'shutdownNotice', rank: null },
    { cmd: 'stop', requested: 'hostb', requester: 'hosta', specialId: 729553924055367690n },
    { cmd: 'cancel', requested: 'hostb', requester: 'hosta', specialId: 1n },
    { cmd: 'configExport', hosts: true, rules: false },
    { cmd: 'configImport', purgeHosts: true, hostFile: '/tmp/h.xml', purgeRules: false, ruleFile: '' },
    { cmd: 'testEnd', text: 'TestPacket: MSG:hi:101' },
    { cmd: 'answer', text: 'hostb hosta 42', code: ErrorCode.CompleteOk },
    { cmd: 'log', start: '2023-11-14 22:13:20', stop: '' },
    { cmd: 'logPurge', start: '', stop: '' },
    { cmd: 'information', result: '/out/remote1.txt\n', count: '1' },
    { cmd: 'bandwidth', global: null, session: null },
    { cmd: 'bandwidth', global: { write: 1000n, read: 2000n }, session: { write: 30n, read: 40n } },
    { cmd: 'other', subType: 99, header: 'h', middle: 'm' },
  ];
  it.each(cases.map((c) => [JSON.stringify(c, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)), c] as const))('%s', (_n, c) => {
    const packet = encodeValidCommand(c);
    const back = decodePacket(encodePacket(packet));
    expect(back).toEqual(packet);
    expect(decodeValidCommand(packet)).toEqual(c);
  });

  it('uses the exact Java texts', () => {
    expect(encodeValidCommand(cases[6]!)).toEqual({ kind: 'valid', header: 'Request on Transfer', middle: 'hostb hosta 729553924055367690', subType: 9 });
    expect(encodeValidCommand(cases[4]!)).toMatchObject({ header: 'Shutdown forced', middle: '12', subType: 8 });
    expect(encodeValidCommand(cases[15]!)).toMatchObject({ header: '-1', middle: '-1', subType: 19 });
  });

  it('a transfer key with fewer than 3 fields is IncorrectCommand (n)', () => {
    expect(() => decodeValidCommand({ kind: 'valid', header: 'Request on Transfer', middle: 'hostb hosta', subType: 9 })).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.IncorrectCommand }),
    );
  });
});
