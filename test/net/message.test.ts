import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { hostEntry, makeHost, makePair, type TestHost } from './harness.js';

const PWD_A = Buffer.from('test de password');
const PWD_B = Buffer.from('test de password2');

describe('message between two hosts over TCP', () => {
  let a: TestHost;
  let b: TestHost;

  beforeEach(async () => {
    ({ a, b } = await makePair({ pwdA: PWD_A, pwdB: PWD_B }));
  });
  afterEach(async () => {
    await a.close();
    await b.close();
  });

  it('gets the original end-of-test answer', async () => {
    const result = await sendMessage(a.pool, 'hostb', 'ping from hosta');
    expect(result.answer).toBe('TestPacket: MSG:ping from hosta:101');
  });

  it('reuses one connection for many concurrent channels', async () => {
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => sendMessage(a.pool, 'hostb', `m${i}`)));
    expect(results.map((r) => r.answer)).toEqual(Array.from({ length: 25 }, (_, i) => `TestPacket: MSG:m${i}:101`));
    expect(a.pool.size).toBe(1);
    expect(b.listener!.openConnections).toBe(1);
  });

  it('refuses a wrong key with Error A, closes the connection and blacklists the address', async () => {
    b.directory.set({ host: hostEntry('hosta', 0, { hostKey: Buffer.from('x') }), password: Buffer.from('another password') });
    const err = await sendMessage(a.pool, 'hostb', 'hi').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.BadAuthent, message: 'Code: REPLY_530_NOT_LOGGED_IN Mesg: Key is not valid for this HostId' });
    expect(b.ctx.blacklist.isBanned('127.0.0.1')).toBe(true);
    // The next connection is accepted then closed at once: the requester, which saw the refusal, names it.
    const again = await sendMessage(a.pool, 'hostb', 'hi').catch((e: unknown) => e);
    expect(again).toMatchObject({ code: ErrorCode.BadAuthent, message: expect.stringContaining('this address is blacklisted since hostb refused its authentication') });
  });

  it('refuses an unknown host and an inactive host with the original texts', async () => {
    const unknown = await makeHost('stranger', [
      { host: hostEntry('stranger', 0), password: Buffer.from('s') },
      { host: hostEntry('hostb', b.listener!.port), password: PWD_B },
    ]);
    try {
      await expect(sendMessage(unknown.pool, 'hostb', 'hi')).rejects.toMatchObject({ message: 'Code: REPLY_530_NOT_LOGGED_IN Mesg: HostId not allowed: stranger', code: ErrorCode.BadAuthent });
    } finally {
      await unknown.close();
    }
    b.ctx.blacklist.disable();
    b.directory.set({ host: hostEntry('hosta', 0, { isActive: false }), password: PWD_A });
    await expect(sendMessage(a.pool, 'hostb', 'hi')).rejects.toMatchObject({ message: 'Code: REPLY_530_NOT_LOGGED_IN Mesg: Host is Inactive therefore connection is refused' });
  });

  it('checks the peer address when checkaddress is on', async () => {
    b.ctx.checkAddress = true;
    expect((await sendMessage(a.pool, 'hostb', 'from the right address')).answer).toContain('from the right address');
    await a.pool.close();
    b.directory.set({ host: hostEntry('hosta', 0, { address: '10.9.9.9' }), password: PWD_A });
    const other = await makeHost('hosta', [...(await Promise.all(['hosta', 'hostb'].map((id) => b.directory.find(id)))).map((e) => e!)]);
    try {
      await expect(sendMessage(other.pool, 'hostb', 'x')).rejects.toMatchObject({ message: 'Code: REPLY_530_NOT_LOGGED_IN Mesg: Server IP not authenticated: 127.0.0.1' });
    } finally {
      await other.close();
    }
  });

  it('the requester checks the answering host too (mutual authentication)', async () => {
    a.directory.set({ host: hostEntry('hostb', b.listener!.port), password: Buffer.from('not the real one') });
    await expect(sendMessage(a.pool, 'hostb', 'hi')).rejects.toMatchObject({ code: ErrorCode.BadAuthent, message: expect.stringContaining('Key is not valid for this HostId') });
  });
});

describe('partners that cannot be used', () => {
  it('refuses unknown and client-only partners with NotKnownHost, and answers U to a command nobody handles', async () => {
    const b = await makeHost('hostb', [], { listen: true });
    const entries = [
      { host: hostEntry('hosta', 0), password: PWD_A },
      { host: hostEntry('hostb', b.listener!.port), password: PWD_B },
      { host: hostEntry('laptop', 0, { isClient: true, address: '0.0.0.0' }), password: null },
    ];
    for (const e of entries) b.directory.set(e);
    const a = await makeHost('hosta', entries);
    try {
      await expect(sendMessage(a.pool, 'nobody', 'x')).rejects.toMatchObject({ code: ErrorCode.NotKnownHost });
      await expect(sendMessage(a.pool, 'laptop', 'x')).rejects.toMatchObject({ code: ErrorCode.NotKnownHost });
      const { channel } = await a.pool.openChannel('hostb');
      await channel.send({ kind: 'businessRequest', header: 'org.x.Y arg', delay: 0, way: 0 });
      expect(await channel.receive(5_000)).toMatchObject({ kind: 'error', code: ErrorCode.Unimplemented });
      channel.close();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
