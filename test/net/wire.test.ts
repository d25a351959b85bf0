import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Digest } from '../../src/model/digest.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { authentPacket, buildVersionString, encodeFrame, NOCHANNEL, UNKNOWN_LOCAL_CHANNEL_MESSAGE } from '../../src/protocol/index.js';
import { hostEntry, makeHost, type TestHost } from './harness.js';
import { RawPeer } from './raw-peer.js';

// Keys and texts of captures/java-3.6.2-session-b.txt.
const PWD_A = 'test de password';
const PWD_B = 'test de password2';
const VERSION_A = buildVersionString({ hostId: 'hosta', finalHash: true, digest: Digest.SHA512, proxified: false, compression: false });
const KEEPALIVE_ASK = Buffer.from('000000178000000080000000150000000900000001000000001500', 'hex');
const KEEPALIVE_ANSWER = Buffer.from('000000178000000080000000150000000900000001000000001501', 'hex');

describe('wire behaviour of the listener (raw socket)', () => {
  let b: TestHost;
  let peer: RawPeer;

  beforeEach(async () => {
    b = await makeHost('hostb', [], { listen: true });
    b.directory.set({ host: hostEntry('hosta', 0), password: Buffer.from(PWD_A) });
    b.directory.set({ host: hostEntry('hostb', b.listener!.port), password: Buffer.from(PWD_B) });
    peer = await RawPeer.open(b.listener!.port);
  });
  afterEach(async () => {
    peer.destroy();
    await b.close();
  });

  it('answers a KeepAlive at once, byte for byte', async () => {
    peer.write(KEEPALIVE_ASK);
    expect((await peer.next())!.raw).toEqual(KEEPALIVE_ANSWER);
  });

  it('answers a frame for an unknown channel with ConnectionError, but not an EndRequest', async () => {
    peer.write(encodeFrame(12345, 77, { kind: 'endRequest', code: ErrorCode.CompleteOk, way: 0, info: '' }));
    peer.write(encodeFrame(12345, 77, { kind: 'test', header: 'MSG', middle: 'x', counter: 100 }));
    const got = await peer.next();
    expect(got!.frame.dstId).toBe(77);
    expect(got!.frame.srcId).toBe(12345);
    expect(got!.packet).toEqual({ kind: 'connectionError', message: UNKNOWN_LOCAL_CHANNEL_MESSAGE, middle: '12345' });
  });

  it('drops a command on an unauthenticated channel without a word', async () => {
    peer.write(encodeFrame(NOCHANNEL, 5, { kind: 'test', header: 'MSG', middle: 'x', counter: 100 }));
    peer.write(KEEPALIVE_ASK);
    expect((await peer.next())!.raw).toEqual(KEEPALIVE_ANSWER);
  });

  it('answers an Authent, echoing localId, then accepts a command on a new channel without Authent (reuse, §6.6)', async () => {
    peer.write(encodeFrame(NOCHANNEL, 0x2842d051, authentPacket('hosta', PWD_A, VERSION_A, 0, 0x2842d051)));
    const answer = await peer.next();
    expect(answer!.frame.dstId).toBe(0x2842d051);
    expect(answer!.packet).toMatchObject({ kind: 'authent', hostId: 'hostb', localId: 0x2842d051, way: 1 });
    expect((answer!.packet as { key: Buffer }).key.toString('hex')).toBe('7e206906d6666797658ab0405076e111');
    expect((answer!.packet as { version: string }).version).toMatch(/^3\.1\.0\.\{"HOSTID":"hostb","VERSION":"3\.1\.0",.*"R66VERSION":"3\.6\.2"/);
    const serverId = answer!.frame.srcId;
    peer.write(encodeFrame(serverId, 0x2842d051, { kind: 'test', header: 'MSG', middle: 'ping from hosta', counter: 100 }));
    const end = await peer.next();
    expect(end!.packet).toEqual({ kind: 'valid', header: 'TestPacket: MSG:ping from hosta:101', middle: '', subType: 13 });
    // Second channel: no Authent.
    peer.write(encodeFrame(NOCHANNEL, 99, { kind: 'test', header: 'MSG', middle: 'again', counter: 100 }));
    const second = await peer.next();
    expect(second!.frame.dstId).toBe(99);
    expect(second!.packet).toMatchObject({ kind: 'valid', header: 'TestPacket: MSG:again:101' });
  });

  it('refuses a wrong key with the exact Error of the original, then closes (captures: session-b stream 12)', async () => {
    peer.write(encodeFrame(NOCHANNEL, -0x7e7917ce, authentPacket('hosta', 'wrong', VERSION_A, 0, -0x7e7917ce)));
    const err = await peer.next();
    expect(err!.frame.dstId).toBe(-0x7e7917ce);
    // Local packet bytes of capture frame #220 (ids differ by nature).
    const expected = Buffer.concat([
      Buffer.from('0000004d000000010000000405', 'hex'),
      Buffer.from('Code: REPLY_530_NOT_LOGGED_IN Mesg: Key is not valid for this HostId'),
      Buffer.from('41', 'hex'),
      Buffer.from('00000003', 'hex'),
    ]);
    expect(err!.frame.localPacket).toEqual(expected);
    expect(err!.packet).toMatchObject({ code: ErrorCode.BadAuthent });
    await peer.closed;
    expect(b.ctx.blacklist.isBanned('127.0.0.1')).toBe(true);
    // Blacklisted: the next connection is closed at once, nothing sent.
    const next = await RawPeer.open(b.listener!.port);
    expect(await next.next()).toBeNull();
  });

  it('closes with a ConnectionError (NOCHANNEL ids) on a frame length below 9', async () => {
    peer.write(Buffer.from('00000005', 'hex'));
    const got = await peer.next();
    expect(got!.frame.dstId).toBe(NOCHANNEL);
    expect(got!.frame.srcId).toBe(NOCHANNEL);
    expect(got!.packet).toMatchObject({ kind: 'connectionError', message: expect.stringContaining('frame length 5') });
    expect(await peer.next()).toBeNull();
  });
});
