// A channel the partner opened never ends in silence: whatever stops its conversation on this
// side, the opener gets an Error packet instead of waiting for an answer that never comes (there
// is no close packet in R66, r66-protocol.md §3.3). Each opener here would otherwise wait its full
// timeoutcon (30 s), beyond the 10 s given to the test.
import { afterEach, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { Connection } from '../../src/net/connection.js';
import { R66Error } from '../../src/model/r66-error.js';
import { encodeFrame, NOCHANNEL, PacketType } from '../../src/protocol/index.js';
import { waitFor } from '../helpers/wait.js';
import { makePair, type TestHost } from './harness.js';
import { RawPeer } from './raw-peer.js';

const QUICK = 10_000;

describe('the peer always learns the end of a channel it opened', () => {
  const hosts: TestHost[] = [];
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.close();
  });

  it('an internal failure while authenticating is answered Error C "Service unavailable"', async () => {
    const { a, b } = await makePair();
    hosts.push(a, b);
    const find = b.directory.find.bind(b.directory);
    let failures = 1;
    b.directory.find = async (id) => {
      if (id === 'hosta' && failures-- > 0) throw new Error('database is locked');
      return find(id);
    };
    const err = await a.pool.openChannel('hostb').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(R66Error);
    expect((err as R66Error).fromPartner).toBe(true);
    expect((err as R66Error).code).toBe(ErrorCode.ConnectionImpossible);
    expect((err as R66Error).message).toBe('Service unavailable');
    // The next channel authenticates normally.
    expect((await sendMessage(a.pool, 'hostb', 'after')).answer).toBe('TestPacket: MSG:after:101');
  }, QUICK);

  it('a command on an unauthenticated channel is answered Error A', async () => {
    const { a, b } = await makePair();
    hosts.push(a, b);
    b.ctx.blacklist.disable();
    const peer = await RawPeer.open(b.listener!.port);
    try {
      peer.write(encodeFrame(NOCHANNEL, 77, { kind: 'test', header: 'MSG', middle: 'hello', counter: 100 }));
      const f = await peer.next();
      expect(f?.frame.dstId).toBe(77);
      expect(f?.packet.kind).toBe('error');
      if (f?.packet.kind === 'error') expect(f.packet.code).toBe(ErrorCode.BadAuthent);
    } finally {
      peer.destroy();
    }
  }, QUICK);

  it('a handler that fails after closing its channel still sends the Error', async () => {
    const { a, b } = await makePair();
    hosts.push(a, b);
    b.ctx.handlers.register('test', async (ctx) => {
      ctx.channel.close();
      throw new R66Error(ErrorCode.Internal, 'the store is unavailable');
    });
    const err = await sendMessage(a.pool, 'hostb', 'hello').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(R66Error);
    expect((err as R66Error).fromPartner).toBe(true);
    expect((err as R66Error).code).toBe(ErrorCode.Internal);
  }, QUICK);

  it('a channel with reused authentication is served while the Authent answer still waits for drain', async () => {
    const { a, b } = await makePair();
    hosts.push(a, b);
    const port = b.listener!.port;
    // hostb's Authent answers reach the socket at once, but their send() only resolves on release:
    // the acceptor is then where a full socket buffer would leave it.
    const writeFrame = Connection.prototype.writeFrame;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    Connection.prototype.writeFrame = function (this: Connection, frame: Buffer): Promise<void> {
      const written = writeFrame.call(this, frame);
      if (this.socket.localPort !== port || frame[12] !== PacketType.AUTHENT) return written;
      held++;
      return written.then(() => gate);
    };
    try {
      const first = sendMessage(a.pool, 'hostb', 'one');
      const entry = (await a.directory.find('hostb'))!.host;
      // hosta has the answer: its next channel reuses the authentication (no Authent, §6.6).
      await waitFor(async () => held === 1 && (await a.pool.connection(entry)).authenticatedPartner !== undefined, { what: 'hosta authenticated' });
      expect((await sendMessage(a.pool, 'hostb', 'two')).answer).toBe('TestPacket: MSG:two:101');
      expect(held).toBe(1);
      release();
      expect((await first).answer).toBe('TestPacket: MSG:one:101');
    } finally {
      Connection.prototype.writeFrame = writeFrame;
      release();
    }
  }, QUICK);
});
