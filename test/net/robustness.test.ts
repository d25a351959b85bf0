import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../helpers/prng.js';
import { sendMessage } from '../../src/client/message.js';
import { Digest } from '../../src/model/digest.js';
import { authentPacket, buildVersionString, encodeFrame, NOCHANNEL } from '../../src/protocol/index.js';
import { makePair, type TestHost } from './harness.js';
import { RawPeer } from './raw-peer.js';

const KEEPALIVE_ASK = Buffer.from('000000178000000080000000150000000900000001000000001500', 'hex');
const MAX_FRAME = 64 * 1024;

/**
 * Sends `bytes`, then a KeepAlive probe, and reads until the connection closes or the probe is
 * answered. Returns what happened and the kinds of packets received.
 */
async function probe(port: number, bytes: Buffer, closeAfter = false): Promise<{ closed: boolean; kinds: string[] }> {
  const peer = await RawPeer.open(port);
  const kinds: string[] = [];
  try {
    peer.write(bytes);
    if (closeAfter) peer.socket.end();
    else peer.write(KEEPALIVE_ASK);
    for (;;) {
      const f = await peer.next();
      if (f === null) return { closed: true, kinds };
      kinds.push(f.packet.kind);
      if (f.packet.kind === 'keepAlive' && f.frame.dstId === NOCHANNEL) return { closed: false, kinds };
    }
  } finally {
    peer.destroy();
  }
}

describe('a live listener fed random, truncated, oversized and mutated frames', () => {
  let a: TestHost;
  let b: TestHost;
  const version = buildVersionString({ hostId: 'hosta', finalHash: true, digest: Digest.SHA512, proxified: false, compression: false });
  const goodAuthent = encodeFrame(NOCHANNEL, 1234, authentPacket('hosta', 'pa', version, 0, 1234));

  beforeAll(async () => {
    ({ a, b } = await makePair({ maxFrameLength: MAX_FRAME }));
    // Refusals must not ban the loopback address for the rest of the run.
    b.ctx.blacklist.disable();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('refuses a frame above the limit from its length field alone, with a ConnectionError', async () => {
    const header = Buffer.alloc(4);
    header.writeInt32BE(MAX_FRAME + 1);
    // Only the 4 length bytes are sent: the refusal cannot have waited for the body.
    const r = await probe(b.listener!.port, header);
    expect(r).toEqual({ closed: true, kinds: ['connectionError'] });
    header.writeInt32BE(-1);
    expect(await probe(b.listener!.port, header)).toEqual({ closed: true, kinds: ['connectionError'] });
  });

  it('survives hundreds of bad inputs while a good connection keeps working', async () => {
    const port = b.listener!.port;
    const rand = prng(0x5eed);
    const good = (async () => {
      const answers: string[] = [];
      for (let i = 0; i < 40; i++) answers.push((await sendMessage(a.pool, 'hostb', `still here ${i}`)).answer);
      return answers;
    })();

    const outcomes = { closedWithError: 0, closedSilently: 0, survived: 0 };
    const record = (r: { closed: boolean; kinds: string[] }): void => {
      if (!r.closed) outcomes.survived++;
      else if (r.kinds.some((k) => k === 'connectionError' || k === 'error')) outcomes.closedWithError++;
      else outcomes.closedSilently++;
    };
    const jobs: Array<Promise<void>> = [];
    for (let i = 0; i < 60; i++) {
      // Random bytes.
      const junk = Buffer.alloc(1 + Math.floor(rand() * 300));
      for (let j = 0; j < junk.length; j++) junk[j] = Math.floor(rand() * 256);
      jobs.push(probe(port, junk).then(record));
      // Truncated valid frame, then the client goes away.
      jobs.push(probe(port, goodAuthent.subarray(0, 1 + Math.floor(rand() * (goodAuthent.length - 1))), true).then(record));
      // Mutated valid frame: a few bytes flipped.
      const mutated = Buffer.from(goodAuthent);
      for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) mutated[Math.floor(rand() * mutated.length)] = Math.floor(rand() * 256);
      jobs.push(probe(port, mutated).then(record));
      if (jobs.length >= 30) await Promise.all(jobs.splice(0));
    }
    await Promise.all(jobs);

    const answers = await good;
    expect(answers).toHaveLength(40);
    expect(answers[39]).toBe('TestPacket: MSG:still here 39:101');
    // Every bad connection ended (with the protocol's error when the server closed it) or stayed
    // responsive; none crashed the listener.
    expect(outcomes.closedWithError + outcomes.closedSilently + outcomes.survived).toBe(180);
    expect(outcomes.closedWithError).toBeGreaterThan(0);
    expect(b.listener!.openConnections).toBeLessThanOrEqual(1 + outcomes.survived);
    // And the listener still accepts new partners.
    expect((await sendMessage(a.pool, 'hostb', 'after the storm')).answer).toBe('TestPacket: MSG:after the storm:101');
  });

  it('closes a connection whose peer sends an undecodable packet before authenticating, with a ConnectionError', async () => {
    // Well framed, but the local envelope lengths are inconsistent.
    const bad = Buffer.from('000000168000000000000001' + '0d' + '00000009' + '00000005' + '00000000' + '0d', 'hex');
    const r = await probe(b.listener!.port, bad);
    expect(r.closed).toBe(true);
    expect(r.kinds).toEqual(['connectionError']);
  });
});
